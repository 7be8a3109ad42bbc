// SQLite 3 from Debian (libsqlite3-dev).
#include <sqlite3.h>

// sqlite3_config is variadic, which Swift cannot call: one fixed wrapper per option we set.
static inline int csqlite_config_memstatus(int on) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on); }
