// The system SQLite (Debian: libsqlite3-dev), imported into Swift as CSQLite.
#include <sqlite3.h>
