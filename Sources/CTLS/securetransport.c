// TLS on Apple platforms: the interface of include/CTLS.h implemented with Security's Secure
// Transport, so the Swift side (TLSSession, TLSServerContext, ServerTLS) is the same everywhere.
//
// Why Secure Transport: macOS ships no OpenSSL to load, and Network.framework owns its
// connections (it cannot run over our sockets, loops and memory buffers). Secure Transport's
// I/O callbacks read and write this session's memory buffers exactly as OpenSSL's memory BIOs
// do on Linux, so the socket code stays in the Swift event loops. It is deprecated but present
// on every macOS and iOS; it speaks TLS 1.2 at most (no 1.3).
//
// The certificate and key arrive as DER, as on Linux. Secure Transport wants a SecIdentityRef:
// SecIdentityCreate makes one in memory from a SecCertificateRef and a SecKeyRef (made with
// SecKeyCreateWithData), so nothing is written to any keychain. docs/architecture.md ("HTTPS on
// macOS") says why this way, what else was considered, and what could not be verified on Linux.
//
// Server side only: https upstreams go through URLSession on Apple platforms
// (StubProxyURLSession) and the CA's keys through Security in Swift (Sources/Certificates).
#if defined(__APPLE__)

// Every Secure Transport call is deprecated (since macOS 10.15); using it is the point here.
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

#include "CTLS.h"

#include <CoreFoundation/CFArray.h>
#include <CoreFoundation/CFBase.h>
#include <CoreFoundation/CFData.h>
#include <CoreFoundation/CFDictionary.h>
#include <CoreFoundation/CFError.h>
#include <CoreFoundation/CFString.h>
#include <Security/SecBase.h>
#include <Security/SecCertificate.h>
#include <Security/SecIdentity.h>
#include <Security/SecItem.h>
#include <Security/SecKey.h>
#include <Security/SecureTransport.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// MARK: - Errors

static void copy_error(char *error, size_t size, const char *text) {
    if (error && size) snprintf(error, size, "%s", text);
}

/// `what`, then Security's text for `status` when it has one.
static void describe_status(char *error, size_t size, const char *what, OSStatus status) {
    if (!error || !size) return;
    char reason[200] = "";
    CFStringRef text = SecCopyErrorMessageString(status, NULL);
    if (text) {
        if (!CFStringGetCString(text, reason, sizeof reason, kCFStringEncodingUTF8)) reason[0] = 0;
        CFRelease(text);
    }
    if (reason[0]) {
        snprintf(error, size, "%s: %s (OSStatus %d)", what, reason, (int)status);
    } else {
        snprintf(error, size, "%s (OSStatus %d)", what, (int)status);
    }
}

/// `what`, then the CFError's description; releases the error.
static void describe_cf_error(char *error, size_t size, const char *what, CFErrorRef failure) {
    char reason[200] = "";
    if (failure) {
        CFStringRef text = CFErrorCopyDescription(failure);
        if (text) {
            if (!CFStringGetCString(text, reason, sizeof reason, kCFStringEncodingUTF8)) reason[0] = 0;
            CFRelease(text);
        }
        CFRelease(failure);
    }
    if (!error || !size) return;
    if (reason[0]) {
        snprintf(error, size, "%s: %s", what, reason);
    } else {
        snprintf(error, size, "%s", what);
    }
}

// MARK: - Availability

/// SecIdentityCreate: exported by Security on macOS 10.12 and iOS 11.2 and later, declared
/// in the public SecIdentity.h only from the macOS 26 and iOS 26 SDKs. Looked up at run time
/// so that the package builds with older SDKs too, and so that a system without it (none that
/// this package supports) fails `--https` with a message instead of failing to launch.
typedef SecIdentityRef (*identity_maker)(CFAllocatorRef, SecCertificateRef, SecKeyRef);
static identity_maker make_identity;
static pthread_once_t lookup_once = PTHREAD_ONCE_INIT;

static void look_up(void) {
    *(void **)(&make_identity) = dlsym(RTLD_DEFAULT, "SecIdentityCreate");
}

int ctls_load(char *error, size_t error_size) {
    pthread_once(&lookup_once, look_up);
    if (make_identity) return 0;
    copy_error(error, error_size,
               "this system's Security framework has no SecIdentityCreate (macOS 10.12 and later have it), "
               "which TLS serving needs to use a certificate and key without a keychain");
    return -1;
}

// MARK: - The private key

/// One DER element's content (or what is left of an outer one).
struct der {
    const unsigned char *bytes;
    size_t length;
};

enum {
    TAG_INTEGER = 0x02,
    TAG_BIT_STRING = 0x03,
    TAG_OCTET_STRING = 0x04,
    TAG_OID = 0x06,
    TAG_SEQUENCE = 0x30,
    TAG_EXPLICIT_0 = 0xA0,
    TAG_EXPLICIT_1 = 0xA1,
};

/// The next element of `in`: its tag and content; `in` moves past it. 0, or -1 when malformed.
/// (The Swift side has already checked the key is one well-formed SEQUENCE; this reads only
/// the few fields Security needs, and checks every length it uses.)
static int der_next(struct der *in, unsigned char *tag, struct der *content) {
    if (in->length < 2) return -1;
    *tag = in->bytes[0];
    size_t length = in->bytes[1];
    size_t header = 2;
    if (length & 0x80) {
        size_t count = length & 0x7F;
        if (count == 0 || count > 4 || in->length < 2 + count) return -1;
        length = 0;
        for (size_t i = 0; i < count; i++) length = (length << 8) | in->bytes[2 + i];
        header += count;
    }
    if (length > in->length - header) return -1;
    content->bytes = in->bytes + header;
    content->length = length;
    in->bytes += header + length;
    in->length -= header + length;
    return 0;
}

static int der_is(struct der value, const unsigned char *expected, size_t length) {
    return value.length == length && memcmp(value.bytes, expected, length) == 0;
}

static const unsigned char oid_rsa_encryption[] = {0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01};
static const unsigned char oid_ec_public_key[] = {0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01};
static const unsigned char oid_p256[] = {0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07};
static const unsigned char oid_p384[] = {0x2B, 0x81, 0x04, 0x00, 0x22};
static const unsigned char oid_p521[] = {0x2B, 0x81, 0x04, 0x00, 0x23};

/// Bytes per coordinate of the named curve, or 0 for a curve Secure Transport cannot use.
static size_t curve_size(struct der oid) {
    if (der_is(oid, oid_p256, sizeof oid_p256)) return 32;
    if (der_is(oid, oid_p384, sizeof oid_p384)) return 48;
    if (der_is(oid, oid_p521, sizeof oid_p521)) return 66;
    return 0;
}

/// A private key as Security takes it (SecKeyCreateWithData): RSA as PKCS #1, EC as
/// `04 || X || Y || D`. The EC fields are read here; the point may be missing from the file
/// (it is optional in the EC form), and is then taken from the certificate.
struct private_key {
    int is_rsa;
    struct der rsa;    // RSAPrivateKey (PKCS #1), the whole element
    size_t field;      // EC: bytes per coordinate
    struct der scalar; // EC: D as stored (leading zeros may be missing)
    struct der point;  // EC: 04 || X || Y, or empty
};

/// ECPrivateKey (RFC 5915): version 1, D, [0] the curve, [1] the public point.
static const char *read_ec_key(struct der element, struct private_key *key) {
    struct der body, field;
    unsigned char tag;
    if (der_next(&element, &tag, &body) != 0 || tag != TAG_SEQUENCE) return "the EC key is not a SEQUENCE";
    if (der_next(&body, &tag, &field) != 0 || tag != TAG_INTEGER) return "the EC key has no version";
    if (der_next(&body, &tag, &key->scalar) != 0 || tag != TAG_OCTET_STRING) return "the EC key has no private value";
    while (body.length > 0) {
        if (der_next(&body, &tag, &field) != 0) return "the EC key's optional fields are malformed";
        struct der inner;
        unsigned char inner_tag;
        if (tag == TAG_EXPLICIT_0) {
            if (der_next(&field, &inner_tag, &inner) != 0 || inner_tag != TAG_OID) {
                return "the EC key's curve is malformed";
            }
            size_t size = curve_size(inner);
            if (size == 0) return "the EC key's curve is not P-256, P-384 or P-521";
            if (key->field && key->field != size) return "the EC key names two different curves";
            key->field = size;
        } else if (tag == TAG_EXPLICIT_1) {
            if (der_next(&field, &inner_tag, &inner) != 0 || inner_tag != TAG_BIT_STRING || inner.length < 1
                || inner.bytes[0] != 0) {
                return "the EC key's public point is malformed";
            }
            key->point.bytes = inner.bytes + 1;
            key->point.length = inner.length - 1;
        }
    }
    if (key->field == 0) return "the EC key does not name its curve";
    if (key->scalar.length == 0 || key->scalar.length > key->field) {
        return "the EC key's private value has the wrong size";
    }
    if (key->point.length && (key->point.length != 1 + 2 * key->field || key->point.bytes[0] != 0x04)) {
        return "the EC key's public point is not an uncompressed point on its curve";
    }
    return NULL;
}

/// The key in `der`: PKCS #8, or the traditional RSA (PKCS #1) or EC (RFC 5915) form. NULL, or
/// what is wrong.
static const char *read_key(const unsigned char *der, size_t length, struct private_key *key) {
    memset(key, 0, sizeof *key);
    struct der all = {der, length}, body, version, second;
    unsigned char tag;
    if (der_next(&all, &tag, &body) != 0 || tag != TAG_SEQUENCE) return "not a DER SEQUENCE";
    if (der_next(&body, &tag, &version) != 0 || tag != TAG_INTEGER) return "no version number";
    struct der rest = body;
    if (der_next(&rest, &tag, &second) != 0) return "it ends after the version number";
    if (tag == TAG_INTEGER) { // RSAPrivateKey: version, modulus, ...
        key->is_rsa = 1;
        key->rsa.bytes = der;
        key->rsa.length = length;
        return NULL;
    }
    if (tag == TAG_OCTET_STRING) { // ECPrivateKey: version, D, ...
        struct der whole = {der, length};
        return read_ec_key(whole, key);
    }
    if (tag != TAG_SEQUENCE) return "neither PKCS #8 nor a traditional RSA or EC key";
    // PrivateKeyInfo: version, AlgorithmIdentifier (second), OCTET STRING holding the key.
    struct der algorithm, parameters, inner;
    if (der_next(&second, &tag, &algorithm) != 0 || tag != TAG_OID) return "PKCS #8 without an algorithm";
    if (der_next(&rest, &tag, &inner) != 0 || tag != TAG_OCTET_STRING) return "PKCS #8 without the key";
    if (der_is(algorithm, oid_rsa_encryption, sizeof oid_rsa_encryption)) {
        key->is_rsa = 1;
        key->rsa = inner;
        return NULL;
    }
    if (!der_is(algorithm, oid_ec_public_key, sizeof oid_ec_public_key)) {
        return "a key type Secure Transport cannot serve with (RSA and EC keys only)";
    }
    if (der_next(&second, &tag, &parameters) != 0 || tag != TAG_OID) return "PKCS #8 EC key without a named curve";
    key->field = curve_size(parameters);
    if (key->field == 0) return "the EC key's curve is not P-256, P-384 or P-521";
    return read_ec_key(inner, key);
}

/// Security's key for `der`, checked against the certificate's public key: NULL and why.
static SecKeyRef make_private_key(const unsigned char *der, size_t length, SecCertificateRef certificate,
                                  char *error, size_t error_size) {
    struct private_key parsed;
    const char *wrong = read_key(der, length, &parsed);
    if (wrong) {
        if (error && error_size) snprintf(error, error_size, "the key cannot be read: %s", wrong);
        return NULL;
    }
    SecKeyRef public_key = SecCertificateCopyKey(certificate);
    if (!public_key) {
        copy_error(error, error_size, "certificate 1: Security cannot read its public key");
        return NULL;
    }
    CFDataRef data = NULL;
    if (parsed.is_rsa) {
        data = CFDataCreate(NULL, parsed.rsa.bytes, (CFIndex)parsed.rsa.length);
    } else {
        // 04 || X || Y || D, D left-padded to the curve's size.
        unsigned char raw[1 + 3 * 66];
        size_t point_length = 1 + 2 * parsed.field;
        CFDataRef from_certificate = NULL;
        const unsigned char *point = parsed.point.bytes;
        if (!parsed.point.length) {
            from_certificate = SecKeyCopyExternalRepresentation(public_key, NULL);
            if (from_certificate && (size_t)CFDataGetLength(from_certificate) == point_length) {
                point = CFDataGetBytePtr(from_certificate);
            }
        }
        if (point) {
            memcpy(raw, point, point_length);
            memset(raw + point_length, 0, parsed.field - parsed.scalar.length);
            memcpy(raw + point_length + parsed.field - parsed.scalar.length, parsed.scalar.bytes, parsed.scalar.length);
            data = CFDataCreate(NULL, raw, (CFIndex)(point_length + parsed.field));
            memset(raw, 0, sizeof raw);
        }
        if (from_certificate) CFRelease(from_certificate);
        if (!point) {
            CFRelease(public_key);
            copy_error(error, error_size, "the key does not match the certificate");
            return NULL;
        }
    }
    const void *names[] = {kSecAttrKeyType, kSecAttrKeyClass};
    const void *values[] = {parsed.is_rsa ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom,
                            kSecAttrKeyClassPrivate};
    CFDictionaryRef attributes = CFDictionaryCreate(NULL, names, values, 2, &kCFTypeDictionaryKeyCallBacks,
                                                    &kCFTypeDictionaryValueCallBacks);
    CFErrorRef failure = NULL;
    SecKeyRef key = data && attributes ? SecKeyCreateWithData(data, attributes, &failure) : NULL;
    if (data) CFRelease(data);
    if (attributes) CFRelease(attributes);
    if (!key) {
        describe_cf_error(error, error_size, "the key cannot be used: Security refused it", failure);
        CFRelease(public_key);
        return NULL;
    }
    // The key matches when what it signs the certificate's key verifies (as OpenSSL's
    // SSL_CTX_check_private_key compares the two public keys): a mismatch is said now, not as
    // a failed handshake later.
    SecKeyAlgorithm algorithm = parsed.is_rsa ? kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256
                                              : kSecKeyAlgorithmECDSASignatureMessageX962SHA256;
    static const UInt8 probe[] = "stubserver: does this key belong to this certificate?";
    CFDataRef message = CFDataCreate(NULL, probe, (CFIndex)(sizeof probe - 1));
    CFDataRef signature = message ? SecKeyCreateSignature(key, algorithm, message, NULL) : NULL;
    Boolean matches = signature && SecKeyVerifySignature(public_key, algorithm, message, signature, NULL);
    if (signature) CFRelease(signature);
    if (message) CFRelease(message);
    CFRelease(public_key);
    if (!matches) {
        CFRelease(key);
        copy_error(error, error_size, "the key does not match the certificate");
        return NULL;
    }
    return key;
}

// MARK: - Server contexts

struct ctls_server {
    /// What SSLSetCertificate takes: the identity (certificate and key), then the rest of the chain.
    CFArrayRef certificates;
    /// ALPN: http/1.1 only.
    CFArrayRef protocols;
    ctls_name_resolver resolver;
    void *resolver_info;
};

static SecCertificateRef certificate_from_der(const unsigned char *bytes, size_t length) {
    CFDataRef data = CFDataCreate(NULL, bytes, (CFIndex)length);
    if (!data) return NULL;
    SecCertificateRef certificate = SecCertificateCreateWithData(NULL, data);
    CFRelease(data);
    return certificate;
}

ctls_server *ctls_server_new(const unsigned char *const *certificates, const size_t *lengths, size_t count,
                             const unsigned char *key, size_t key_length, char *error, size_t error_size) {
    if (ctls_load(error, error_size) != 0) return NULL;
    if (count == 0) {
        copy_error(error, error_size, "no certificate");
        return NULL;
    }
    ctls_server *server = NULL;
    SecCertificateRef leaf = NULL;
    SecKeyRef private_key = NULL;
    SecIdentityRef identity = NULL;
    CFMutableArrayRef chain = CFArrayCreateMutable(NULL, (CFIndex)count, &kCFTypeArrayCallBacks);
    if (!chain) {
        copy_error(error, error_size, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < count; i++) {
        SecCertificateRef certificate = certificate_from_der(certificates[i], lengths[i]);
        if (!certificate) {
            if (error && error_size)
                snprintf(error, error_size, "certificate %zu: not an X.509 certificate Security can read", i + 1);
            goto done;
        }
        if (i == 0) {
            leaf = certificate;
        } else {
            CFArrayAppendValue(chain, certificate);
            CFRelease(certificate);
        }
    }
    private_key = make_private_key(key, key_length, leaf, error, error_size);
    if (!private_key) goto done;
    identity = make_identity(NULL, leaf, private_key);
    if (!identity) {
        copy_error(error, error_size, "the key does not match the certificate (SecIdentityCreate refused the pair)");
        goto done;
    }
    CFArrayInsertValueAtIndex(chain, 0, identity);
    // Secure Transport checks the identity when it is set: try it once now, so a refusal is an
    // error at start and not a failed handshake on every connection.
    SSLContextRef probe = SSLCreateContext(NULL, kSSLServerSide, kSSLStreamType);
    OSStatus status = probe ? SSLSetCertificate(probe, chain) : errSecAllocate;
    if (probe) CFRelease(probe);
    if (status != errSecSuccess) {
        describe_status(error, error_size, "Secure Transport refused the certificate and key", status);
        goto done;
    }
    CFStringRef http11 = CFStringCreateWithCString(NULL, "http/1.1", kCFStringEncodingASCII);
    const void *protocol[] = {http11};
    CFArrayRef protocols = http11 ? CFArrayCreate(NULL, protocol, 1, &kCFTypeArrayCallBacks) : NULL;
    if (http11) CFRelease(http11);
    server = protocols ? calloc(1, sizeof *server) : NULL;
    if (!server) {
        if (protocols) CFRelease(protocols);
        copy_error(error, error_size, "out of memory");
        goto done;
    }
    server->certificates = chain;
    server->protocols = protocols;
    chain = NULL; // the server's now
done:
    if (chain) CFRelease(chain);
    if (identity) CFRelease(identity);
    if (private_key) CFRelease(private_key);
    if (leaf) CFRelease(leaf);
    return server;
}

void ctls_server_free(ctls_server *server) {
    if (!server) return;
    CFRelease(server->certificates);
    CFRelease(server->protocols);
    free(server);
}

void ctls_server_set_resolver(ctls_server *server, ctls_name_resolver resolver, void *info) {
    server->resolver = resolver;
    server->resolver_info = info;
}

// MARK: - Sessions over memory buffers

/// Bytes not yet consumed: `bytes[start..<end]`.
struct byte_buffer {
    unsigned char *bytes;
    size_t start;
    size_t end;
    size_t capacity;
};

struct ctls_session {
    SSLContextRef ssl;
    ctls_server *server;
    /// Ciphertext from the peer that Secure Transport has not read yet.
    struct byte_buffer incoming;
    /// Ciphertext Secure Transport wrote that the connection has not taken yet.
    struct byte_buffer outgoing;
};

static int buffer_append(struct byte_buffer *buffer, const void *bytes, size_t count) {
    if (count == 0) return 0;
    if (buffer->start > 0 && count > buffer->capacity - buffer->end) { // reuse the consumed front
        memmove(buffer->bytes, buffer->bytes + buffer->start, buffer->end - buffer->start);
        buffer->end -= buffer->start;
        buffer->start = 0;
    }
    if (count > buffer->capacity - buffer->end) {
        if (count > SIZE_MAX / 2 - buffer->end) return -1;
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->end + count) capacity *= 2;
        unsigned char *grown = realloc(buffer->bytes, capacity);
        if (!grown) return -1;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->end, bytes, count);
    buffer->end += count;
    return 0;
}

static size_t buffer_take(struct byte_buffer *buffer, void *into, size_t capacity) {
    size_t count = buffer->end - buffer->start;
    if (count > capacity) count = capacity;
    if (count > 0) memcpy(into, buffer->bytes + buffer->start, count);
    buffer->start += count;
    if (buffer->start == buffer->end) buffer->start = buffer->end = 0;
    return count;
}

/// Secure Transport reads the peer's ciphertext from the session's input buffer: what there is,
/// and errSSLWouldBlock when that is less than asked (it keeps the part and asks again later),
/// as OpenSSL's memory BIO answers "retry" when empty.
static OSStatus read_incoming(SSLConnectionRef connection, void *data, size_t *length) {
    ctls_session *session = (ctls_session *)(uintptr_t)connection;
    size_t wanted = *length;
    *length = buffer_take(&session->incoming, data, wanted);
    return *length == wanted ? errSecSuccess : errSSLWouldBlock;
}

/// Secure Transport's ciphertext goes to the session's output buffer, all of it, always.
static OSStatus write_outgoing(SSLConnectionRef connection, const void *data, size_t *length) {
    ctls_session *session = (ctls_session *)(uintptr_t)connection;
    if (buffer_append(&session->outgoing, data, *length) != 0) {
        *length = 0;
        return errSecAllocate;
    }
    return errSecSuccess;
}

ctls_session *ctls_server_session_new(ctls_server *server, char *error, size_t error_size) {
    ctls_session *session = calloc(1, sizeof *session);
    SSLContextRef ssl = SSLCreateContext(NULL, kSSLServerSide, kSSLStreamType);
    if (!session || !ssl) {
        free(session);
        if (ssl) CFRelease(ssl);
        copy_error(error, error_size, "cannot make a TLS session");
        return NULL;
    }
    session->ssl = ssl;
    session->server = server;
    // Server-side resumption (TLS 1.2 session ids in Secure Transport's process-wide cache) is
    // on once a peer id is set; on the server side its bytes are not otherwise used.
    static const char peer[] = "stubserver";
    OSStatus status = SSLSetIOFuncs(ssl, read_incoming, write_outgoing);
    if (status == errSecSuccess) status = SSLSetConnection(ssl, session);
    if (status == errSecSuccess) status = SSLSetProtocolVersionMin(ssl, kTLSProtocol12);
    if (status == errSecSuccess) status = SSLSetProtocolVersionMax(ssl, kTLSProtocol12);
    if (status == errSecSuccess) status = SSLSetCertificate(ssl, server->certificates);
    // SNI: stop after the ClientHello, so the requested name can choose the certificate.
    if (status == errSecSuccess) status = SSLSetSessionOption(ssl, kSSLSessionOptionBreakOnClientHello, true);
    if (status == errSecSuccess) status = SSLSetPeerID(ssl, peer, sizeof peer - 1);
    if (status == errSecSuccess) status = SSLSetALPNProtocols(ssl, server->protocols);
    if (status != errSecSuccess) {
        describe_status(error, error_size, "cannot configure the TLS session", status);
        ctls_session_free(session);
        return NULL;
    }
    return session;
}

void ctls_session_free(ctls_session *session) {
    if (!session) return;
    if (session->ssl) CFRelease(session->ssl);
    free(session->incoming.bytes);
    free(session->outgoing.bytes);
    free(session);
}

int ctls_feed(ctls_session *session, const void *bytes, size_t count) {
    return buffer_append(&session->incoming, bytes, count) == 0 ? CTLS_OK : CTLS_ERROR;
}

size_t ctls_outgoing(ctls_session *session) {
    return session->outgoing.end - session->outgoing.start;
}

long ctls_take_outgoing(ctls_session *session, void *buffer, size_t capacity) {
    return (long)buffer_take(&session->outgoing, buffer, capacity);
}

/// Maps a Secure Transport result to one of ours, with why for errors.
static long outcome(OSStatus status, const char *what, char *error, size_t error_size) {
    switch (status) {
    case errSecSuccess:
        return CTLS_OK;
    case errSSLWouldBlock:
        return CTLS_WANT_READ;
    case errSSLClosedGraceful:
    case errSSLClosedNoNotify:
        return CTLS_CLOSED;
    default:
        describe_status(error, error_size, what, status);
        return CTLS_ERROR;
    }
}

/// After the ClientHello: the certificate for the name the client asked for, when the resolver
/// has one; otherwise the main one stays.
static OSStatus serve_requested_name(ctls_session *session) {
    ctls_server *server = session->server;
    size_t length = 0;
    if (!server->resolver || SSLCopyRequestedPeerNameLength(session->ssl, &length) != errSecSuccess || length == 0
        || length > 255) {
        return errSecSuccess;
    }
    char name[256];
    size_t copied = sizeof name - 1;
    if (SSLCopyRequestedPeerName(session->ssl, name, &copied) != errSecSuccess || copied > sizeof name - 1) {
        return errSecSuccess;
    }
    name[copied] = 0;
    if (strlen(name) != copied) return errSecSuccess; // a NUL inside is no host name
    ctls_server *chosen = server->resolver(name, server->resolver_info);
    if (!chosen || chosen == server) return errSecSuccess;
    return SSLSetCertificate(session->ssl, chosen->certificates);
}

int ctls_handshake(ctls_session *session, char *error, size_t error_size) {
    OSStatus status = SSLHandshake(session->ssl);
    // Once per handshake (at most a few times, should a client renegotiate).
    for (int round = 0; status == errSSLClientHelloReceived && round < 4; round++) {
        status = serve_requested_name(session);
        if (status == errSecSuccess) status = SSLHandshake(session->ssl);
    }
    return (int)outcome(status, "the TLS handshake failed", error, error_size);
}

void ctls_close_notify(ctls_session *session) {
    SSLClose(session->ssl); // writes our close_notify; the peer's is not awaited
}

long ctls_read(ctls_session *session, void *buffer, size_t capacity, char *error, size_t error_size) {
    size_t processed = 0;
    OSStatus status = SSLRead(session->ssl, buffer, capacity, &processed);
    // What was read is handed on; a close or an error after it is reported by the next call.
    if (processed > 0) return (long)processed;
    long result = outcome(status, "the TLS session failed", error, error_size);
    return result == CTLS_OK ? CTLS_WANT_READ : result;
}

long ctls_write(ctls_session *session, const void *bytes, size_t count, char *error, size_t error_size) {
    size_t processed = 0;
    OSStatus status = SSLWrite(session->ssl, bytes, count, &processed);
    if (processed > 0) return (long)processed;
    long result = outcome(status, "the TLS session failed", error, error_size);
    return result == CTLS_OK ? CTLS_WANT_READ : result;
}

// MARK: - Clients: not through CTLS on Apple platforms

ctls_context *ctls_context_new(const char *ca_file, char *error, size_t error_size) {
    (void)ca_file;
    copy_error(error, error_size, "https upstreams go through URLSession on Apple platforms, not CTLS");
    return NULL;
}

void ctls_context_free(ctls_context *context) {
    (void)context;
}

ctls_session *ctls_session_new(ctls_context *context, const char *host, char *error, size_t error_size) {
    (void)context;
    (void)host;
    copy_error(error, error_size, "https upstreams go through URLSession on Apple platforms, not CTLS");
    return NULL;
}

#endif
