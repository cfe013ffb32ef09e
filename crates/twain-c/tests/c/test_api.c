/*
 * The C API's test suite: every function of twain.h, with its error paths (NULL
 * pointers, bad lengths, bad option names and values, a missing database, a missing key).
 * A plain C program with its own checks: it prints each failed check and exits non-zero.
 *
 * Usage: test_api DIR   (DIR: an empty directory it may fill; tests/c_suite.rs makes one)
 *
 * Built and run by tests/c_suite.rs, also under AddressSanitizer, which then reports any
 * leak of a buffer or object this program forgets to free: so it frees everything.
 */

#include "twain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                               \
        }                                                                             \
    } while (0)

/* Checks that a call returned `want`; on an error also that it wrote a message, which is
 * freed. Returns whether the code was right. */
#define EXPECT(want, call) expect_status((want), (call), &err, __LINE__, #call)

static char *err = NULL;

static int expect_status(twain_status want, twain_status got, char **msg, int line,
                         const char *what) {
    int ok = got == want;
    if (!ok) {
        fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, line, what, got,
                *msg ? *msg : "no message", want);
        failures++;
    }
    if (want == TWAIN_OK && *msg != NULL) {
        fprintf(stderr, "%s:%d: %s succeeded but left a message\n", __FILE__, line, what);
        failures++;
    }
    if (want != TWAIN_OK && (*msg == NULL || (*msg)[0] == '\0')) {
        fprintf(stderr, "%s:%d: %s failed without a message\n", __FILE__, line, what);
        failures++;
    }
    twain_free(*msg);
    *msg = NULL;
    return ok;
}

#define K(s) (const uint8_t *)(s), strlen(s)

/* The value of `key` in `db` as a NUL-terminated copy (the caller frees it with free()),
 * or NULL when the key is missing. */
static char *get_string(const twain_db *db, const char *key) {
    uint8_t *value = (uint8_t *)1;
    size_t len = 99;
    if (!EXPECT(TWAIN_OK, twain_get(db, K(key), &value, &len, &err))) return NULL;
    if (value == NULL) {
        CHECK(len == 0);
        return NULL;
    }
    char *copy = malloc(len + 1);
    memcpy(copy, value, len);
    copy[len] = '\0';
    twain_free(value);
    return copy;
}

static int value_is(const twain_db *db, const char *key, const char *want) {
    char *got = get_string(db, key);
    int ok = (got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0);
    if (!ok) fprintf(stderr, "value of %s: %s, expected %s\n", key, got ? got : "(missing)",
                     want ? want : "(missing)");
    free(got);
    return ok;
}

static void test_version(void) {
    const char *v = twain_version();
    CHECK(v != NULL && strlen(v) > 0);
}

static void test_options(void) {
    twain_options *o = twain_options_create();
    CHECK(o != NULL);
    EXPECT(TWAIN_OK, twain_options_set(o, "memtable_size", "8M", &err));
    EXPECT(TWAIN_OK, twain_options_set(o, "create_if_missing", "true", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, "no_such_option", "1", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, "num_levels", "many", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, "num_levels", "1000", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, "memtable\xff_size", "8M", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, "gc_mode", "\xc3\x28", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(NULL, "memtable_size", "8M", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, NULL, "8M", &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_options_set(o, "memtable_size", NULL, &err));
    /* errmsg may be NULL: the code alone. */
    CHECK(twain_options_set(o, "nope", "1", NULL) == TWAIN_INVALID_ARGUMENT);
    twain_options_free(o);
    twain_options_free(NULL);
}

static void test_open_errors(const char *dir) {
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    twain_db *db = (twain_db *)1;
    twain_options *o = twain_options_create();
    EXPECT(TWAIN_OK, twain_options_set(o, "create_if_missing", "false", &err));
    EXPECT(TWAIN_NOT_FOUND, twain_open(missing, o, &db, &err));
    CHECK(db == NULL);
    EXPECT(TWAIN_NOT_FOUND, twain_open_read_only(missing, NULL, &db, &err));
    CHECK(db == NULL);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_open(NULL, o, &db, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_open("", o, &db, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_open(missing, o, NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_open_read_only(NULL, NULL, &db, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_open_read_only(missing, NULL, NULL, &err));
    twain_options_free(o);
    EXPECT(TWAIN_OK, twain_close(NULL, &err));
}

static void test_put_get_delete(twain_db *db) {
    EXPECT(TWAIN_OK, twain_put(db, K("apple"), K("red"), true, &err));
    EXPECT(TWAIN_OK, twain_put(db, K("banana"), K("yellow"), false, &err));
    CHECK(value_is(db, "apple", "red"));
    CHECK(value_is(db, "missing", NULL));

    /* Empty keys and values are allowed; a found empty value is not NULL. */
    EXPECT(TWAIN_OK, twain_put(db, NULL, 0, NULL, 0, false, &err));
    uint8_t *value = NULL;
    size_t len = 7;
    EXPECT(TWAIN_OK, twain_get(db, NULL, 0, &value, &len, &err));
    CHECK(value != NULL && len == 0);
    twain_free(value);
    EXPECT(TWAIN_OK, twain_delete(db, NULL, 0, false, &err));
    CHECK(value_is(db, "", NULL));

    /* A value large enough to be separated into the value log. */
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    EXPECT(TWAIN_OK, twain_put(db, K("big"), K(big), false, &err));
    CHECK(value_is(db, "big", big));

    EXPECT(TWAIN_OK, twain_delete(db, K("banana"), true, &err));
    CHECK(value_is(db, "banana", NULL));
    EXPECT(TWAIN_OK, twain_delete(db, K("never-there"), false, &err));

    /* Argument checks. */
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_put(NULL, K("k"), K("v"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_put(db, NULL, 3, K("v"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_put(db, K("k"), NULL, 3, false, &err));
    size_t too_long = 65537;
    uint8_t *long_key = calloc(too_long, 1);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_put(db, long_key, too_long, K("v"), false, &err));
    EXPECT(TWAIN_OK, twain_put(db, long_key, too_long - 1, K("v"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get(db, long_key, too_long, &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete(db, long_key, too_long, false, &err));
    EXPECT(TWAIN_OK, twain_delete(db, long_key, too_long - 1, false, &err));
    free(long_key);
    /* A value over 64 MiB is refused before a byte of it is read. */
    EXPECT(TWAIN_INVALID_ARGUMENT,
           twain_put(db, K("k"), (const uint8_t *)"v", (size_t)64 * 1024 * 1024 + 1, false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_put(db, K("k"), (const uint8_t *)"v", SIZE_MAX, false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get(NULL, K("apple"), &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get(db, NULL, 1, &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get(db, K("apple"), NULL, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get(db, K("apple"), &value, NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete(NULL, K("apple"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete(db, NULL, 2, false, &err));
}

static void test_batch(twain_db *db) {
    twain_writebatch *b = twain_writebatch_create();
    CHECK(b != NULL);
    EXPECT(TWAIN_OK, twain_writebatch_put(b, K("b1"), K("one"), &err));
    EXPECT(TWAIN_OK, twain_writebatch_put(b, K("b2"), K("two"), &err));
    EXPECT(TWAIN_OK, twain_writebatch_delete(b, K("b1"), &err));
    EXPECT(TWAIN_OK, twain_writebatch_put(b, K("b3"), NULL, 0, &err));
    EXPECT(TWAIN_OK, twain_write(db, b, true, &err));
    CHECK(value_is(db, "b1", NULL));
    CHECK(value_is(db, "b2", "two"));
    CHECK(value_is(db, "b3", ""));

    /* The write emptied the batch: writing it again changes nothing. */
    EXPECT(TWAIN_OK, twain_put(db, K("b1"), K("back"), false, &err));
    EXPECT(TWAIN_OK, twain_write(db, b, false, &err));
    CHECK(value_is(db, "b1", "back"));

    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_put(NULL, K("k"), K("v"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_put(b, NULL, 1, K("v"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_put(b, K("k"), NULL, 1, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_put(b, K("k"), (const uint8_t *)"v", SIZE_MAX, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_delete(NULL, K("k"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_delete(b, NULL, 5, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_write(NULL, b, false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_write(db, NULL, false, &err));
    twain_writebatch_free(b);
    twain_writebatch_free(NULL);
}

static void test_delete_range(twain_db *db) {
    const char *keys[] = {"r1", "r2", "r3", "r4", "r5"};
    for (int i = 0; i < 5; i++) EXPECT(TWAIN_OK, twain_put(db, K(keys[i]), K("v"), false, &err));
    /* [r2, r4): r2 and r3 go. */
    EXPECT(TWAIN_OK, twain_delete_range(db, K("r2"), K("r4"), true, &err));
    CHECK(value_is(db, "r1", "v"));
    CHECK(value_is(db, "r2", NULL));
    CHECK(value_is(db, "r3", NULL));
    CHECK(value_is(db, "r4", "v"));
    /* In a batch, between other operations: the put before it goes, the one after stays. */
    twain_writebatch *b = twain_writebatch_create();
    EXPECT(TWAIN_OK, twain_writebatch_put(b, K("r2"), K("gone"), &err));
    EXPECT(TWAIN_OK, twain_writebatch_delete_range(b, K("r1"), K("r5"), &err));
    EXPECT(TWAIN_OK, twain_writebatch_put(b, K("r3"), K("kept"), &err));
    EXPECT(TWAIN_OK, twain_write(db, b, false, &err));
    CHECK(value_is(db, "r1", NULL));
    CHECK(value_is(db, "r2", NULL));
    CHECK(value_is(db, "r3", "kept"));
    CHECK(value_is(db, "r4", NULL));
    CHECK(value_is(db, "r5", "v"));
    /* An empty range deletes nothing; a start after the end is refused. */
    EXPECT(TWAIN_OK, twain_delete_range(db, K("r5"), K("r5"), false, &err));
    CHECK(value_is(db, "r5", "v"));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete_range(db, K("r5"), K("r1"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_delete_range(b, K("r5"), K("r1"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete_range(NULL, K("a"), K("b"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete_range(db, NULL, 1, K("b"), false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_delete_range(db, K("a"), NULL, 1, false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_delete_range(NULL, K("a"), K("b"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_delete_range(b, K("a"), NULL, 1, &err));
    /* The refused additions left the (emptied) batch empty: writing it changes nothing. */
    EXPECT(TWAIN_OK, twain_write(db, b, false, &err));
    CHECK(value_is(db, "r5", "v"));
    twain_writebatch_free(b);
    EXPECT(TWAIN_OK, twain_delete(db, K("r3"), false, &err));
    EXPECT(TWAIN_OK, twain_delete(db, K("r5"), false, &err));
}

static void test_expiry(twain_db *db) {
    uint64_t now = 0, at = 1;
    EXPECT(TWAIN_OK, twain_now_millis(db, &now, &err));
    CHECK(now > 1577836800000ull); /* after 2020 */
    EXPECT(TWAIN_OK, twain_put_with_expiry(db, K("e1"), K("soon"), now + 3600000, false, &err));
    EXPECT(TWAIN_OK, twain_expiry(db, K("e1"), &at, &err));
    CHECK(at == now + 3600000);
    CHECK(value_is(db, "e1", "soon"));
    /* A time already past acts as a delete. */
    EXPECT(TWAIN_OK, twain_put_with_expiry(db, K("e1"), K("gone"), now - 1, false, &err));
    CHECK(value_is(db, "e1", NULL));
    EXPECT(TWAIN_NOT_FOUND, twain_expiry(db, K("e1"), &at, &err));
    CHECK(at == 0);
    /* A plain put never expires: 0. */
    EXPECT(TWAIN_OK, twain_put(db, K("e2"), K("plain"), false, &err));
    at = 1;
    EXPECT(TWAIN_OK, twain_expiry(db, K("e2"), &at, &err));
    CHECK(at == 0);
    twain_writebatch *b = twain_writebatch_create();
    EXPECT(TWAIN_OK, twain_writebatch_put_with_expiry(b, K("e3"), K("batched"), now + 60000, &err));
    EXPECT(TWAIN_OK, twain_write(db, b, false, &err));
    EXPECT(TWAIN_OK, twain_expiry(db, K("e3"), &at, &err));
    CHECK(at == now + 60000);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_writebatch_put_with_expiry(NULL, K("k"), K("v"), 1, &err));
    twain_writebatch_free(b);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_put_with_expiry(NULL, K("k"), K("v"), 1, false, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_expiry(db, K("k"), NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_expiry(NULL, K("k"), &at, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_now_millis(db, NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_now_millis(NULL, &now, &err));
}

static void test_snapshot(twain_db *db) {
    EXPECT(TWAIN_OK, twain_put(db, K("s"), K("before"), false, &err));
    twain_snapshot *s = (twain_snapshot *)1;
    EXPECT(TWAIN_OK, twain_snapshot_create(db, &s, &err));
    CHECK(s != NULL);
    EXPECT(TWAIN_OK, twain_put(db, K("s"), K("after"), false, &err));
    EXPECT(TWAIN_OK, twain_put(db, K("s2"), K("new"), false, &err));

    uint8_t *value = NULL;
    size_t len = 0;
    EXPECT(TWAIN_OK, twain_snapshot_get(s, K("s"), &value, &len, &err));
    CHECK(value != NULL && len == 6 && memcmp(value, "before", 6) == 0);
    twain_free(value);
    EXPECT(TWAIN_OK, twain_snapshot_get(s, K("s2"), &value, &len, &err));
    CHECK(value == NULL && len == 0);
    CHECK(value_is(db, "s", "after"));

    /* An iterator over the snapshot sees its view, also after the snapshot is freed. */
    twain_iterator *it = NULL;
    EXPECT(TWAIN_OK, twain_snapshot_iter_create(s, K("s"), K("t"), false, &it, &err));
    twain_snapshot_free(s);
    EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err));
    const uint8_t *k = NULL, *v = NULL;
    size_t kn = 0, vn = 0;
    CHECK(twain_iter_valid(it));
    EXPECT(TWAIN_OK, twain_iter_key(it, &k, &kn, &err));
    EXPECT(TWAIN_OK, twain_iter_value(it, &v, &vn, &err));
    CHECK(kn == 1 && memcmp(k, "s", 1) == 0 && vn == 6 && memcmp(v, "before", 6) == 0);
    EXPECT(TWAIN_OK, twain_iter_next(it, &err));
    CHECK(!twain_iter_valid(it)); /* "s2" came after the snapshot */
    twain_iter_free(it);

    EXPECT(TWAIN_INVALID_ARGUMENT, twain_snapshot_create(NULL, &s, &err));
    CHECK(s == NULL);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_snapshot_create(db, NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_snapshot_get(NULL, K("s"), &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_snapshot_iter_create(NULL, NULL, 0, NULL, 0, false, &it, &err));
    CHECK(it == NULL);
    twain_snapshot_free(NULL);
}

/* The key the iterator is on, compared with `want` (NULL: not valid). */
static int at(const twain_iterator *it, const char *want) {
    if (!twain_iter_valid(it)) return want == NULL;
    const uint8_t *k = NULL;
    size_t kn = 0;
    if (!EXPECT(TWAIN_OK, twain_iter_key(it, &k, &kn, &err))) return 0;
    return want != NULL && kn == strlen(want) && memcmp(k, want, kn) == 0;
}

static void test_iterators(twain_db *db) {
    const char *keys[] = {"i1", "i2", "i3", "i4"};
    for (int i = 0; i < 4; i++) EXPECT(TWAIN_OK, twain_put(db, K(keys[i]), K(keys[i]), false, &err));

    /* Over [i2, i4). */
    twain_iterator *it = NULL;
    EXPECT(TWAIN_OK, twain_iter_create(db, K("i2"), K("i4"), false, &it, &err));
    CHECK(!twain_iter_valid(it)); /* unpositioned until a seek */
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_next(it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_prev(it, &err));
    const uint8_t *p = NULL;
    size_t n = 0;
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_key(it, &p, &n, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_value(it, &p, &n, &err));

    EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err));
    CHECK(at(it, "i2"));
    EXPECT(TWAIN_OK, twain_iter_value(it, &p, &n, &err));
    CHECK(n == 2 && memcmp(p, "i2", 2) == 0);
    EXPECT(TWAIN_OK, twain_iter_next(it, &err));
    CHECK(at(it, "i3"));
    EXPECT(TWAIN_OK, twain_iter_next(it, &err));
    CHECK(at(it, NULL)); /* i4 is outside */
    EXPECT(TWAIN_OK, twain_iter_seek_to_last(it, &err));
    CHECK(at(it, "i3"));
    EXPECT(TWAIN_OK, twain_iter_prev(it, &err));
    CHECK(at(it, "i2"));
    EXPECT(TWAIN_OK, twain_iter_prev(it, &err));
    CHECK(at(it, NULL));
    EXPECT(TWAIN_OK, twain_iter_seek(it, K("i25"), &err));
    CHECK(at(it, "i3"));
    EXPECT(TWAIN_OK, twain_iter_seek_for_prev(it, K("i25"), &err));
    CHECK(at(it, "i2"));
    EXPECT(TWAIN_OK, twain_iter_seek(it, K("i0"), &err)); /* before the range: its start */
    CHECK(at(it, "i2"));
    EXPECT(TWAIN_OK, twain_iter_seek(it, K("z"), &err));
    CHECK(at(it, NULL));
    EXPECT(TWAIN_OK, twain_iter_status(it, &err));
    twain_iter_free(it);

    /* The whole database, keys only: every key, no values. */
    EXPECT(TWAIN_OK, twain_iter_create(db, NULL, 0, NULL, 0, true, &it, &err));
    int count = 0;
    for (EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err)); twain_iter_valid(it);
         EXPECT(TWAIN_OK, twain_iter_next(it, &err)))
        count++;
    EXPECT(TWAIN_OK, twain_iter_status(it, &err));
    CHECK(count >= 4);
    EXPECT(TWAIN_OK, twain_iter_seek(it, K("i1"), &err));
    CHECK(at(it, "i1"));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_value(it, &p, &n, &err));
    twain_iter_free(it);

    /* Argument checks. */
    it = (twain_iterator *)1;
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_create(NULL, NULL, 0, NULL, 0, false, &it, &err));
    CHECK(it == NULL);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_create(db, NULL, 1, NULL, 0, false, &it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_create(db, NULL, 0, NULL, 1, false, &it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_create(db, NULL, 0, NULL, 0, false, NULL, &err));
    EXPECT(TWAIN_OK, twain_iter_create(db, NULL, 0, NULL, 0, false, &it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek(it, NULL, 4, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek_for_prev(it, NULL, 4, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek(it, (const uint8_t *)"k", SIZE_MAX, &err));
    EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_key(it, NULL, &n, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_key(it, &p, NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_value(it, NULL, &n, &err));
    twain_iter_free(it);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek(NULL, K("a"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek_for_prev(NULL, K("a"), &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek_to_first(NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_seek_to_last(NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_next(NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_prev(NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_key(NULL, &p, &n, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_value(NULL, &p, &n, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_status(NULL, &err));
    CHECK(!twain_iter_valid(NULL));
    twain_iter_free(NULL);
}

static void test_stats(twain_db *db) {
    char *json = NULL;
    EXPECT(TWAIN_OK, twain_stats_json(db, &json, &err));
    CHECK(json != NULL && json[0] == '{' && strstr(json, "\"user_ops\"") != NULL);
    twain_free(json);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_stats_json(NULL, &json, &err));
    CHECK(json == NULL);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_stats_json(db, NULL, &err));
}

/* A counter of the statistics' JSON, e.g. "block_cache_misses". */
static unsigned long long stat(const twain_db *db, const char *name) {
    char *json = NULL;
    unsigned long long n = 0;
    if (!EXPECT(TWAIN_OK, twain_stats_json(db, &json, &err))) return 0;
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":", name);
    const char *at = strstr(json, pattern);
    CHECK(at != NULL);
    if (at != NULL) n = strtoull(at + strlen(pattern), NULL, 10);
    twain_free(json);
    return n;
}

static void test_read_options(twain_db *db) {
    EXPECT(TWAIN_OK, twain_put(db, K("ro1"), K("one"), false, &err));
    EXPECT(TWAIN_OK, twain_put(db, K("ro2"), K("two"), false, &err));
    EXPECT(TWAIN_OK, twain_flush(db, &err));
    twain_readoptions *ro = twain_readoptions_create();
    CHECK(ro != NULL);
    EXPECT(TWAIN_OK, twain_readoptions_set_fill_cache(ro, false, &err));
    EXPECT(TWAIN_OK, twain_readoptions_set_prefetch(ro, false, &err));

    /* Without filling the cache, each read of the table's block misses again; the
     * default fills it, so its reads hit. (Background work may read blocks too: the
     * checks leave room for a few of its misses.) */
    uint8_t *value = NULL;
    size_t len = 0;
    twain_readoptions *fill = twain_readoptions_create();
    unsigned long long misses = stat(db, "block_cache_misses");
    for (int i = 0; i < 20; i++) {
        EXPECT(TWAIN_OK, twain_get_opt(db, ro, K("ro1"), &value, &len, &err));
        CHECK(value != NULL && len == 3 && memcmp(value, "one", 3) == 0);
        twain_free(value);
    }
    CHECK(stat(db, "block_cache_misses") >= misses + 20);
    EXPECT(TWAIN_OK, twain_get_opt(db, fill, K("ro1"), &value, &len, &err));
    twain_free(value);
    misses = stat(db, "block_cache_misses");
    unsigned long long hits = stat(db, "block_cache_hits");
    for (int i = 0; i < 20; i++) {
        EXPECT(TWAIN_OK, twain_get_opt(db, fill, K("ro1"), &value, &len, &err));
        CHECK(value != NULL && len == 3 && memcmp(value, "one", 3) == 0);
        twain_free(value);
    }
    CHECK(stat(db, "block_cache_hits") >= hits + 20);
    CHECK(stat(db, "block_cache_misses") < misses + 10);
    twain_readoptions_free(fill);
    EXPECT(TWAIN_OK, twain_get_opt(db, ro, K("missing"), &value, &len, &err));
    CHECK(value == NULL && len == 0);

    /* Iterators and snapshots take them too. */
    twain_iterator *it = NULL;
    EXPECT(TWAIN_OK, twain_iter_create_opt(db, ro, K("ro1"), K("ro3"), false, &it, &err));
    EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err));
    CHECK(at(it, "ro1"));
    EXPECT(TWAIN_OK, twain_iter_next(it, &err));
    CHECK(at(it, "ro2"));
    EXPECT(TWAIN_OK, twain_iter_next(it, &err));
    CHECK(at(it, NULL));
    twain_iter_free(it);
    twain_snapshot *s = NULL;
    EXPECT(TWAIN_OK, twain_snapshot_create(db, &s, &err));
    EXPECT(TWAIN_OK, twain_put(db, K("ro1"), K("later"), false, &err));
    EXPECT(TWAIN_OK, twain_snapshot_get_opt(s, ro, K("ro1"), &value, &len, &err));
    CHECK(value != NULL && len == 3 && memcmp(value, "one", 3) == 0);
    twain_free(value);
    EXPECT(TWAIN_OK, twain_snapshot_iter_create_opt(s, ro, NULL, 0, NULL, 0, true, &it, &err));
    EXPECT(TWAIN_OK, twain_iter_seek(it, K("ro1"), &err));
    CHECK(at(it, "ro1"));
    twain_iter_free(it);

    /* Separated values, scanned with and without prefetching (the database prefetches
     * however fast reads are: prefetch_min_read_micros is 0). */
    char big[1000];
    memset(big, 'p', sizeof big);
    for (int i = 0; i < 200; i++) {
        char key[16];
        snprintf(key, sizeof key, "rp%03d", i);
        EXPECT(TWAIN_OK, twain_put(db, K(key), (const uint8_t *)big, sizeof big, false, &err));
    }
    EXPECT(TWAIN_OK, twain_flush(db, &err));
    unsigned long long prefetched = stat(db, "prefetch_reads");
    int seen = 0;
    EXPECT(TWAIN_OK, twain_iter_create_opt(db, ro, K("rp"), K("rq"), false, &it, &err));
    for (EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err)); twain_iter_valid(it);
         EXPECT(TWAIN_OK, twain_iter_next(it, &err))) {
        const uint8_t *v = NULL;
        size_t vn = 0;
        EXPECT(TWAIN_OK, twain_iter_value(it, &v, &vn, &err));
        CHECK(vn == sizeof big && memcmp(v, big, vn) == 0);
        seen++;
    }
    twain_iter_free(it);
    CHECK(seen == 200);
    CHECK(stat(db, "prefetch_reads") == prefetched);
    twain_readoptions *ahead = twain_readoptions_create();
    EXPECT(TWAIN_OK, twain_iter_create_opt(db, ahead, K("rp"), K("rq"), false, &it, &err));
    seen = 0;
    for (EXPECT(TWAIN_OK, twain_iter_seek_to_first(it, &err)); twain_iter_valid(it);
         EXPECT(TWAIN_OK, twain_iter_next(it, &err)))
        seen++;
    twain_iter_free(it);
    twain_readoptions_free(ahead);
    CHECK(seen == 200);
    CHECK(stat(db, "prefetch_reads") > prefetched);

    /* Argument checks; a failed read leaves its outputs NULL and 0. */
    value = (uint8_t *)1;
    len = 1;
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get_opt(db, NULL, K("ro1"), &value, &len, &err));
    CHECK(value == NULL && len == 0);
    value = (uint8_t *)1;
    len = 1;
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get(NULL, K("ro1"), &value, &len, &err));
    CHECK(value == NULL && len == 0);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_readoptions_set_fill_cache(NULL, true, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_readoptions_set_prefetch(NULL, true, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get_opt(db, NULL, K("ro1"), &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get_opt(NULL, ro, K("ro1"), &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_get_opt(db, ro, NULL, 3, &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_snapshot_get_opt(s, NULL, K("ro1"), &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_snapshot_get_opt(NULL, ro, K("ro1"), &value, &len, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_create_opt(db, NULL, NULL, 0, NULL, 0, false, &it, &err));
    CHECK(it == NULL);
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_iter_create_opt(db, ro, NULL, 4, NULL, 0, false, &it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT,
           twain_snapshot_iter_create_opt(s, NULL, NULL, 0, NULL, 0, false, &it, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT,
           twain_snapshot_iter_create_opt(s, ro, NULL, 0, NULL, 0, false, NULL, &err));
    EXPECT(TWAIN_INVALID_ARGUMENT, twain_flush(NULL, &err));
    twain_snapshot_free(s);
    twain_readoptions_free(ro);
    twain_readoptions_free(NULL);
}

static void test_reopen(const char *path) {
    twain_db *db = NULL;
    EXPECT(TWAIN_OK, twain_open(path, NULL, &db, &err));
    twain_db *second = NULL;
    EXPECT(TWAIN_LOCKED, twain_open(path, NULL, &second, &err));
    CHECK(second == NULL);

    /* A read-only open works beside the writer and refuses writes. */
    twain_db *ro = NULL;
    EXPECT(TWAIN_OK, twain_open_read_only(path, NULL, &ro, &err));
    CHECK(value_is(ro, "apple", "red"));
    EXPECT(TWAIN_READ_ONLY, twain_put(ro, K("k"), K("v"), false, &err));
    EXPECT(TWAIN_READ_ONLY, twain_delete(ro, K("apple"), false, &err));
    twain_writebatch *b = twain_writebatch_create();
    EXPECT(TWAIN_OK, twain_writebatch_put(b, K("k"), K("v"), &err));
    EXPECT(TWAIN_READ_ONLY, twain_write(ro, b, false, &err));
    twain_writebatch_free(b);
    EXPECT(TWAIN_OK, twain_close(ro, &err));
    EXPECT(TWAIN_OK, twain_close(db, &err));

    twain_options *o = twain_options_create();
    EXPECT(TWAIN_OK, twain_options_set(o, "error_if_exists", "true", &err));
    EXPECT(TWAIN_ALREADY_EXISTS, twain_open(path, o, &db, &err));
    CHECK(db == NULL);
    twain_options_free(o);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/db", argv[1]);

    test_version();
    test_options();
    test_open_errors(argv[1]);

    twain_options *o = twain_options_create();
    EXPECT(TWAIN_OK, twain_options_set(o, "memtable_size", "1M", &err));
    EXPECT(TWAIN_OK, twain_options_set(o, "prefetch_min_read_micros", "0", &err));
    twain_db *db = NULL;
    EXPECT(TWAIN_OK, twain_open(path, o, &db, &err));
    twain_options_free(o);
    if (db == NULL) return 1;

    test_put_get_delete(db);
    test_batch(db);
    test_delete_range(db);
    test_expiry(db);
    test_snapshot(db);
    test_iterators(db);
    test_stats(db);
    test_read_options(db);
    EXPECT(TWAIN_OK, twain_close(db, &err));
    test_reopen(path);
    twain_free(NULL);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("twain C API tests passed\n");
    return 0;
}
