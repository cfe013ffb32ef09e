/*
 * twain from C: open with options, write, read, a batch, a snapshot, an iterator, the
 * statistics, and error handling. Every object and every returned buffer is freed.
 *
 *   cc example.c -I crates/twain-c/include target/debug/libtwain_c.a -lpthread -ldl -lm
 *   ./a.out /tmp/example-db
 */

#include "twain.h"

#include <stdio.h>
#include <string.h>

/* Reports a failed call and its message (freeing it); returns whether it succeeded. */
static int ok(twain_status status, char *errmsg, const char *what) {
    if (status == TWAIN_OK) return 1;
    fprintf(stderr, "%s failed (code %d): %s\n", what, status, errmsg ? errmsg : "");
    twain_free(errmsg);
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "/tmp/twain-example";
    char *err = NULL;

    twain_options *options = twain_options_create();
    if (!ok(twain_options_set(options, "memtable_size", "8M", &err), err, "set memtable_size"))
        return 1;
    /* A misspelt option is an error, with a message: */
    if (twain_options_set(options, "memtable_sise", "8M", &err) == TWAIN_INVALID_ARGUMENT) {
        printf("as expected: %s\n", err);
        twain_free(err);
    }

    twain_db *db = NULL;
    twain_status s = twain_open(path, options, &db, &err);
    twain_options_free(options); /* the open made its own copy */
    if (!ok(s, err, "open")) return 1;

    ok(twain_put(db, (const uint8_t *)"apple", 5, (const uint8_t *)"red", 3, true, &err), err,
       "put");

    uint8_t *value = NULL;
    size_t len = 0;
    if (ok(twain_get(db, (const uint8_t *)"apple", 5, &value, &len, &err), err, "get")) {
        if (value != NULL) printf("apple = %.*s\n", (int)len, (const char *)value);
        twain_free(value); /* a value is the caller's */
    }
    if (ok(twain_get(db, (const uint8_t *)"kiwi", 4, &value, &len, &err), err, "get") &&
        value == NULL)
        printf("kiwi is missing\n");

    twain_writebatch *batch = twain_writebatch_create();
    twain_writebatch_put(batch, (const uint8_t *)"banana", 6, (const uint8_t *)"yellow", 6, &err);
    twain_writebatch_put(batch, (const uint8_t *)"cherry", 6, (const uint8_t *)"dark red", 8, &err);
    twain_writebatch_delete(batch, (const uint8_t *)"apple", 5, &err);
    ok(twain_write(db, batch, true, &err), err, "write"); /* all three, atomically */
    twain_writebatch_free(batch);

    twain_snapshot *snapshot = NULL;
    ok(twain_snapshot_create(db, &snapshot, &err), err, "snapshot");
    twain_put(db, (const uint8_t *)"date", 4, (const uint8_t *)"brown", 5, false, &err);

    /* Every key of the snapshot, in order: the date written after it is not there. */
    twain_iterator *it = NULL;
    if (ok(twain_snapshot_iter_create(snapshot, NULL, 0, NULL, 0, false, &it, &err), err,
           "iterator")) {
        for (twain_iter_seek_to_first(it, &err); twain_iter_valid(it); twain_iter_next(it, &err)) {
            const uint8_t *k, *v;
            size_t kn, vn;
            twain_iter_key(it, &k, &kn, NULL);
            twain_iter_value(it, &v, &vn, NULL); /* both borrowed: valid until the next move */
            printf("%.*s = %.*s\n", (int)kn, (const char *)k, (int)vn, (const char *)v);
        }
        ok(twain_iter_status(it, &err), err, "iteration");
        twain_iter_free(it);
    }
    twain_snapshot_free(snapshot);

    char *json = NULL;
    if (ok(twain_stats_json(db, &json, &err), err, "stats")) {
        printf("stats: %.60s...\n", json);
        twain_free(json);
    }

    return ok(twain_close(db, &err), err, "close") ? 0 : 1;
}
