// TLS for the proxy's https upstreams, through the system's OpenSSL loaded at run time.
//
// Why: on Linux, Foundation's URLSession cannot be told to trust a CA file (corelibs reads
// `URLSessionCertificateAuthorityInfoFile` only on Android and evaluates no server trust), and
// it decodes, folds and adds headers. OpenSSL is on every Linux that runs Swift (libcurl, which
// FoundationNetworking links, is built on it), so loading libssl with dlopen costs no package
// dependency and no link-time requirement. The session works on memory buffers: the Swift side
// moves ciphertext between the socket and the session, so socket code stays in one place and
// no OpenSSL call ever touches a descriptor (no SIGPIPE, no blocking).
//
// Loaded on Linux only; elsewhere `ctls_load` reports that it is unavailable and the proxy uses
// URLSession.
#ifndef CTLS_H
#define CTLS_H

#include <stddef.h>

typedef struct ctls_context ctls_context;
typedef struct ctls_session ctls_session;

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
/// available; otherwise -1 and why in `error`.
int ctls_load(char *error, size_t error_size);

/// A client context that verifies servers against the system's trust store, plus the PEM
/// certificates in `ca_file` when it is not NULL. NULL and why in `error` on failure.
ctls_context *ctls_context_new(const char *ca_file, char *error, size_t error_size);
void ctls_context_free(ctls_context *context);

/// A client session for `host` (SNI and name check; an IP literal is checked as an address).
ctls_session *ctls_session_new(ctls_context *context, const char *host, char *error, size_t error_size);
void ctls_session_free(ctls_session *session);

/// Ciphertext received from the peer. Returns CTLS_OK or CTLS_ERROR.
int ctls_feed(ctls_session *session, const void *bytes, size_t count);
/// Ciphertext waiting to go to the peer: its size, and up to `capacity` bytes of it taken.
size_t ctls_outgoing(ctls_session *session);
long ctls_take_outgoing(ctls_session *session, void *buffer, size_t capacity);

/// Drives the handshake: CTLS_OK when done, CTLS_WANT_READ, or CTLS_ERROR with why.
int ctls_handshake(ctls_session *session, char *error, size_t error_size);
/// Plaintext from the peer: a positive count, CTLS_WANT_READ, CTLS_CLOSED or CTLS_ERROR.
long ctls_read(ctls_session *session, void *buffer, size_t capacity, char *error, size_t error_size);
/// Plaintext to the peer (all of it is taken once the handshake is done): a positive count,
/// CTLS_WANT_READ or CTLS_ERROR.
long ctls_write(ctls_session *session, const void *bytes, size_t count, char *error, size_t error_size);

#endif
