// Debian's SQLite (libsqlite3-dev), for the report outbox (PetSpotOutbox).
#include <sqlite3.h>

/// SQLITE_TRANSIENT (SQLite copies a bound text or blob before the call
/// returns): a macro casting -1 to a function pointer, which Swift cannot
/// import; this wrapper is why the header has more than the include.
static inline sqlite3_destructor_type petspot_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
