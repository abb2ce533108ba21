// TLS through the system's OpenSSL loaded at run time: client sessions for the proxy's https
// upstreams, server contexts and sessions for `--https`, and P-256 keys for the local
// certificate authority.
//
// Why: on Linux, Foundation's URLSession cannot be told to trust a CA file (corelibs reads
// `URLSessionCertificateAuthorityInfoFile` only on Android and evaluates no server trust), and
// it decodes, folds and adds headers. OpenSSL is on every Linux that runs Swift (libcurl, which
// FoundationNetworking links, is built on it), so loading libssl with dlopen costs no package
// dependency and no link-time requirement. The session works on memory buffers: the Swift side
// moves ciphertext between the socket and the session, so socket code stays in one place and
// no OpenSSL call ever touches a descriptor (no SIGPIPE, no blocking).
//
// OpenSSL is loaded on Linux only. On Apple platforms the server side of this interface is
// Secure Transport (securetransport.c: no OpenSSL ships with macOS), and the client and key
// calls report themselves unavailable (the proxy uses URLSession there, and the certificates
// use Security in Swift). Elsewhere `ctls_load` reports that TLS is unavailable.
#ifndef CTLS_H
#define CTLS_H

#include <stddef.h>

typedef struct ctls_context ctls_context;
typedef struct ctls_session ctls_session;
typedef struct ctls_server ctls_server;

/// Results of the session calls below (byte counts are positive).
enum {
    CTLS_OK = 0,
    CTLS_ERROR = -1,
    /// More ciphertext from the peer is needed: feed it, then call again.
    CTLS_WANT_READ = -2,
    /// The peer ended the TLS session (close_notify).
    CTLS_CLOSED = -3,
};

/// Loads libssl and libcrypto once (later calls return the first result). 0 when TLS is
/// available; otherwise -1 and why in `error` (naming the package to install). On Apple
/// platforms: 0 when Secure Transport can serve (the whole server side below).
int ctls_load(char *error, size_t error_size);

/// A client context that verifies servers against the system's trust store, plus the PEM
/// certificates in `ca_file` when it is not NULL. NULL and why in `error` on failure.
ctls_context *ctls_context_new(const char *ca_file, char *error, size_t error_size);
void ctls_context_free(ctls_context *context);

/// A client session for `host` (SNI and name check; an IP literal is checked as an address).
ctls_session *ctls_session_new(ctls_context *context, const char *host, char *error, size_t error_size);
void ctls_session_free(ctls_session *session);

/// A server context: `certificates` are DER, the server's own first, then its chain; `key` is
/// the private key in DER (PKCS #8, or the traditional RSA or EC form). TLS 1.2 and 1.3 only
/// (Secure Transport: 1.2 only), ALPN http/1.1 only, resumption on. NULL and why (which
/// certificate, or the key) on failure.
ctls_server *ctls_server_new(const unsigned char *const *certificates, const size_t *lengths, size_t count,
                             const unsigned char *key, size_t key_length, char *error, size_t error_size);
void ctls_server_free(ctls_server *server);
/// Asked, during a handshake, for the context that serves the name the client sent (SNI): the
/// answer must stay alive as long as `server`; NULL keeps `server`'s certificate.
typedef ctls_server *(*ctls_name_resolver)(const char *name, void *info);
void ctls_server_set_resolver(ctls_server *server, ctls_name_resolver resolver, void *info);
/// A server session (the accepting side of one connection).
ctls_session *ctls_server_session_new(ctls_server *server, char *error, size_t error_size);

/// Ciphertext received from the peer. Returns CTLS_OK or CTLS_ERROR.
int ctls_feed(ctls_session *session, const void *bytes, size_t count);
/// Ciphertext waiting to go to the peer: its size, and up to `capacity` bytes of it taken.
size_t ctls_outgoing(ctls_session *session);
long ctls_take_outgoing(ctls_session *session, void *buffer, size_t capacity);

/// Drives the handshake: CTLS_OK when done, CTLS_WANT_READ, or CTLS_ERROR with why.
int ctls_handshake(ctls_session *session, char *error, size_t error_size);
/// Writes our close_notify alert (take it with `ctls_take_outgoing`); the peer's is not awaited.
void ctls_close_notify(ctls_session *session);
/// Plaintext from the peer: a positive count, CTLS_WANT_READ, CTLS_CLOSED or CTLS_ERROR.
long ctls_read(ctls_session *session, void *buffer, size_t capacity, char *error, size_t error_size);
/// Plaintext to the peer (all of it is taken once the handshake is done): a positive count,
/// CTLS_WANT_READ or CTLS_ERROR.
long ctls_write(ctls_session *session, const void *bytes, size_t count, char *error, size_t error_size);

/// A new P-256 private key, PKCS #8 DER, into `out`: its length, or -1 and why.
long ctls_key_generate_p256(unsigned char *out, size_t capacity, char *error, size_t error_size);
/// The SubjectPublicKeyInfo (DER) of a private key given in DER: its length, or -1 and why.
long ctls_key_public_info(const unsigned char *key_der, size_t key_length, unsigned char *out, size_t capacity,
                          char *error, size_t error_size);
/// An ECDSA (or RSA PKCS #1 v1.5) signature over SHA-256 of `message`, DER: its length, or -1.
long ctls_key_sign_sha256(const unsigned char *key_der, size_t key_length, const void *message, size_t count,
                          unsigned char *out, size_t capacity, char *error, size_t error_size);

#endif
