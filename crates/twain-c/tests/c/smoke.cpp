// The header from C++: it compiles as C++ (extern "C", no C-only constructs), links, and
// a round trip works. Built and run by tests/c_suite.rs when a C++ compiler is installed.

#include "twain.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {

std::string take_message(char *errmsg) {
    std::string s = errmsg ? errmsg : "";
    twain_free(errmsg);
    return s;
}

bool check(twain_status status, char *errmsg, const char *what) {
    if (status == TWAIN_OK) return true;
    std::fprintf(stderr, "%s: %d %s\n", what, status, take_message(errmsg).c_str());
    return false;
}

const uint8_t *bytes(const std::string &s) { return reinterpret_cast<const uint8_t *>(s.data()); }

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    std::string path = std::string(argv[1]) + "/db";
    char *err = nullptr;
    twain_db *db = nullptr;
    if (!check(twain_open(path.c_str(), nullptr, &db, &err), err, "open")) return 1;
    std::string key = "key", value = "value";
    if (!check(twain_put(db, bytes(key), key.size(), bytes(value), value.size(), true, &err), err,
               "put"))
        return 1;
    uint8_t *got = nullptr;
    size_t len = 0;
    if (!check(twain_get(db, bytes(key), key.size(), &got, &len, &err), err, "get")) return 1;
    std::string read(reinterpret_cast<const char *>(got), len);
    twain_free(got);
    if (twain_options_set(nullptr, "a", "b", &err) != TWAIN_INVALID_ARGUMENT) return 1;
    take_message(err);
    if (!check(twain_close(db, &err), err, "close")) return 1;
    if (read != value) return 1;
    std::printf("C++ smoke passed\n");
    return 0;
}
