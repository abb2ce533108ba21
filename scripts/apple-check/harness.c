// Runs securetransport.c's key reader and memory buffers on Linux (scripts/apple-check/run builds
// it: the file as on Apple platforms, with Apple's headers, for Linux). With FUZZ, a libFuzzer
// target on the key reader instead. The keys are read from the working directory.
#include "securetransport.c"

#ifdef FUZZ

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    struct private_key key;
    if (read_key(data, size, &key) == NULL) {
        // What was read lies inside the input, and an EC scalar fits its curve.
        const unsigned char *end = data + size;
        if (key.is_rsa) {
            if (key.rsa.bytes < data || key.rsa.bytes + key.rsa.length > end) __builtin_trap();
        } else {
            if (key.scalar.bytes < data || key.scalar.bytes + key.scalar.length > end) __builtin_trap();
            if (key.scalar.length == 0 || key.scalar.length > key.field) __builtin_trap();
            if (key.point.length && (key.point.bytes < data || key.point.bytes + key.point.length > end)) {
                __builtin_trap();
            }
        }
    }
    return 0;
}

#else

#include <stdio.h>
#include <stdlib.h>

// The stdio.h and stdlib.h shims declare only what securetransport.c uses.
FILE *fopen(const char *, const char *);
size_t fread(void *, size_t, size_t, FILE *);
int fclose(FILE *);
int printf(const char *, ...);
void abort(void);

static int failures = 0;
static size_t load(const char *path, unsigned char *out, size_t capacity) {
    FILE *file = fopen(path, "rb");
    if (!file) { printf("cannot open %s\n", path); abort(); }
    size_t n = fread(out, 1, capacity, file);
    fclose(file);
    return n;
}
static void expect(int condition, const char *what) {
    if (!condition) { failures++; printf("FAIL: %s\n", what); } else printf("ok: %s\n", what);
}

static void check_ec(const char *path, size_t field, int has_point) {
    unsigned char der[4096];
    size_t n = load(path, der, sizeof der);
    struct private_key key;
    const char *wrong = read_key(der, n, &key);
    char what[300];
    snprintf(what, sizeof what, "%s: EC, %zu-byte field, point %s (%s)", path, field, has_point ? "present" : "absent",
             wrong ? wrong : "read");
    expect(!wrong && !key.is_rsa && key.field == field && key.scalar.length > 0 && key.scalar.length <= field
               && (has_point ? key.point.length == 1 + 2 * field && key.point.bytes[0] == 4 : key.point.length == 0),
           what);
}

static void check_rsa(const char *path, int whole) {
    unsigned char der[4096];
    size_t n = load(path, der, sizeof der);
    struct private_key key;
    const char *wrong = read_key(der, n, &key);
    char what[300];
    snprintf(what, sizeof what, "%s: RSA PKCS #1 %s (%s)", path, whole ? "is the whole file" : "inside PKCS #8",
             wrong ? wrong : "read");
    // PKCS #1 starts SEQUENCE, INTEGER 0 (version), INTEGER (modulus).
    int shape = key.rsa.length > 8 && key.rsa.bytes[0] == 0x30;
    expect(!wrong && key.is_rsa && shape && (whole ? key.rsa.bytes == der && key.rsa.length == n : key.rsa.bytes > der),
           what);
}

static void check_refused(const char *path, const char *label, size_t cut) {
    unsigned char der[4096];
    size_t n = load(path, der, sizeof der);
    if (cut) n = cut;
    struct private_key key;
    const char *wrong = read_key(der, n, &key);
    char what[300];
    snprintf(what, sizeof what, "%s refused: %s", label, wrong ? wrong : "(accepted!)");
    expect(wrong != NULL, what);
}

int main(void) {
    check_ec("p256-pkcs8.der", 32, 1);
    check_ec("p256-sec1.der", 32, 1);
    check_ec("p256-sec1-nopub.der", 32, 0);
    check_ec("p256-pkcs8-nopub.der", 32, 0);
    check_ec("p384-pkcs8.der", 48, 1);
    check_ec("p521-pkcs8.der", 66, 1);
    check_rsa("rsa-pkcs8.der", 0);
    check_rsa("rsa-pkcs1.der", 1);
    check_refused("ed25519.der", "Ed25519 (PKCS #8)", 0);
    check_refused("k256-pkcs8.der", "secp256k1", 0);
    // Every truncation of a valid key is refused, never read past its end.
    unsigned char der[4096];
    size_t n = load("p256-pkcs8.der", der, sizeof der);
    int truncations = 0;
    for (size_t cut = 0; cut < n; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1); // exact size: ASan catches any overread
        memcpy(copy, der, cut);
        struct private_key key;
        if (read_key(copy, cut, &key) != NULL) truncations++;
        free(copy);
    }
    char what[100];
    snprintf(what, sizeof what, "all %zu truncations of p256-pkcs8.der refused (%d)", n, truncations);
    expect(truncations == (int)n, what);
    // A long-form length larger than the input.
    unsigned char lying[] = {0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x02, 0x01, 0x00};
    struct private_key key;
    expect(read_key(lying, sizeof lying, &key) != NULL, "a length beyond the input is refused");

    // Memory buffers: what Secure Transport's callbacks see.
    ctls_session session;
    memset(&session, 0, sizeof session);
    unsigned char bytes[10000];
    for (int i = 0; i < 10000; i++) bytes[i] = (unsigned char)i;
    expect(ctls_feed(&session, bytes, 3) == CTLS_OK, "feed 3 bytes");
    unsigned char got[10000];
    size_t length = 5;
    OSStatus status = read_incoming(&session, got, &length);
    expect(status == errSSLWouldBlock && length == 3 && memcmp(got, bytes, 3) == 0,
           "asked for 5 with 3 there: the 3 and errSSLWouldBlock");
    length = 5;
    status = read_incoming(&session, got, &length);
    expect(status == errSSLWouldBlock && length == 0, "empty: 0 bytes and errSSLWouldBlock");
    ctls_feed(&session, bytes, 6000);
    ctls_feed(&session, bytes + 6000, 4000);
    length = 10000;
    status = read_incoming(&session, got, &length);
    expect(status == errSecSuccess && length == 10000 && memcmp(got, bytes, 10000) == 0,
           "two feeds read back whole and in order");
    length = 4;
    expect(write_outgoing(&session, bytes, &length) == errSecSuccess && length == 4, "write callback takes all");
    length = 9000;
    write_outgoing(&session, bytes + 4, &length);
    expect(ctls_outgoing(&session) == 9004, "outgoing counts what was written");
    expect(ctls_take_outgoing(&session, got, 100) == 100 && memcmp(got, bytes, 100) == 0, "take part");
    expect(ctls_take_outgoing(&session, got, 20000) == 8904 && memcmp(got, bytes + 100, 8904) == 0, "take the rest");
    expect(ctls_outgoing(&session) == 0, "nothing left");
    // Interleaved feed and partial reads (the record layer reads 5 bytes, then the body).
    size_t fed = 0, read = 0;
    int in_order = 1;
    while (read < 10000) {
        if (fed < 10000) {
            size_t step = fed + 777 > 10000 ? 10000 - fed : 777;
            ctls_feed(&session, bytes + fed, step);
            fed += step;
        }
        size_t want = read % 2 ? 5 : 1000;
        if (want > 10000 - read) want = 10000 - read;
        length = want;
        read_incoming(&session, got, &length);
        if (memcmp(got, bytes + read, length) != 0) in_order = 0;
        read += length;
    }
    expect(in_order && session.incoming.start == 0 && session.incoming.end == 0,
           "interleaved feeds and reads keep order");
    free(session.incoming.bytes);
    free(session.outgoing.bytes);
    printf("%d failure(s)\n", failures);
    return failures != 0;
}

#endif

// Data Security and CoreFoundation export, which nothing here reads (only code not run refers to them).
const CFStringRef kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 = NULL;
const CFStringRef kSecKeyAlgorithmECDSASignatureMessageX962SHA256 = NULL;
const CFStringRef kSecAttrKeyType = NULL;
const CFStringRef kSecAttrKeyClass = NULL;
const CFStringRef kSecAttrKeyTypeRSA = NULL;
const CFStringRef kSecAttrKeyTypeECSECPrimeRandom = NULL;
const CFStringRef kSecAttrKeyClassPrivate = NULL;
const CFArrayCallBacks kCFTypeArrayCallBacks;
const CFDictionaryKeyCallBacks kCFTypeDictionaryKeyCallBacks;
const CFDictionaryValueCallBacks kCFTypeDictionaryValueCallBacks;
