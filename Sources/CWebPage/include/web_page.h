#ifndef MICROAPP_WEB_PAGE_H
#define MICROAPP_WEB_PAGE_H

#include <stddef.h>

/// One file of the browser front end's page, embedded in the binary when it was built: its name as the page asks
/// for it (`app.js`), its media type, and its bytes (static, never freed, any thread may read them).
typedef struct web_page_file {
    const char *name;
    const char *media_type;
    const unsigned char *bytes;
    size_t length;
} web_page_file;

/// The page's files, `web_page_file_count()` of them.
const web_page_file *web_page_files(void);

/// How many files `web_page_files()` holds.
size_t web_page_file_count(void);

#endif
