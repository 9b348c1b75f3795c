#include "web_page.h"

// The page's files are the ones in page/ when the binary was built: the compiler embeds their bytes (C23 #embed,
// which clang also records as dependencies, so an edited file rebuilds this one). Nothing is read at run time.
#pragma clang diagnostic ignored "-Wc23-extensions"

static const unsigned char index_html[] = {
#embed "page/index.html"
};
static const unsigned char app_css[] = {
#embed "page/app.css"
};
static const unsigned char app_js[] = {
#embed "page/app.js"
};

static const web_page_file files[] = {
    {"index.html", "text/html; charset=utf-8", index_html, sizeof index_html},
    {"app.css", "text/css; charset=utf-8", app_css, sizeof app_css},
    {"app.js", "text/javascript; charset=utf-8", app_js, sizeof app_js},
};

const web_page_file *web_page_files(void) { return files; }

size_t web_page_file_count(void) { return sizeof files / sizeof files[0]; }
