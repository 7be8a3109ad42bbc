// SQLite 3 from Debian (libsqlite3-dev).
#include <sqlite3.h>
