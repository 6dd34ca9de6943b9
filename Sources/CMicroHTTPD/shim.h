#pragma once
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <microhttpd.h>

/// `MHD_OPTION_URI_LOG_CALLBACK` has no typedef in microhttpd.h; its documented form.
typedef void *(*sluice_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// `MHD_OPTION_UNESCAPE_CALLBACK` has no typedef in microhttpd.h; its documented form.
typedef size_t (*sluice_mhd_unescape_callback)(void *cls, struct MHD_Connection *connection, char *s);

/// Starts a daemon: the callbacks are passed as typed varargs, integer options as an `MHD_OPTION_ARRAY`
/// terminated by `MHD_OPTION_END`.
static inline struct MHD_Daemon *sluice_mhd_start_daemon(
    unsigned int flags,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    sluice_mhd_uri_log_callback uri_log, void *uri_log_cls,
    sluice_mhd_unescape_callback unescape, void *unescape_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
                            MHD_OPTION_UNESCAPE_CALLBACK, unescape, unescape_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/// Connections the daemon (all its worker threads) holds now.
static inline unsigned int sluice_mhd_current_connections(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The client's socket address, or NULL.
static inline const struct sockaddr *sluice_mhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// What the connection-notify callback stored for the connection, or NULL.
static inline void *sluice_mhd_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Milliseconds since data last arrived on the TCP socket `fd` (`tcpi_last_data_recv`), or -1.
static inline long long sluice_tcp_ms_since_data(int fd)
{
    struct tcp_info info;
    socklen_t length = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return info.tcpi_last_data_recv;
}

/// 1 when the peer of TCP socket `fd` has shut down its sending side (its FIN arrived), even with bytes still unread;
/// Linux's POLLRDHUP (0x2000), which <poll.h> declares only for _GNU_SOURCE.
static inline int sluice_tcp_peer_shut_down(int fd)
{
    struct pollfd entry = { .fd = fd, .events = 0x2000 };
    return poll(&entry, 1, 0) == 1 && (entry.revents & (0x2000 | POLLHUP | POLLERR)) != 0;
}

/// Sets the connection's inactivity timeout (MHD_set_connection_option is variadic, which Swift cannot call).
static inline void sluice_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds)
{
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/// The connection's socket, or -1.
static inline int sluice_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// Bytes of the request head (request line to the empty line) once it is complete, or 0.
static inline size_t sluice_mhd_request_header_size(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// `MHD_CONTENT_READER_END_WITH_ERROR`, a cast macro Swift cannot import.
static inline ssize_t sluice_mhd_reader_end_with_error(void)
{
    return MHD_CONTENT_READER_END_WITH_ERROR;
}

/// Appends one libmicrohttpd log message to the `char[SLUICE_MHD_MESSAGE_CAPACITY]` buffer `cls`.
#define SLUICE_MHD_MESSAGE_CAPACITY 512
static inline void sluice_mhd_log_to_buffer(void *cls, const char *format, va_list arguments)
{
    char *buffer = cls;
    size_t used = strlen(buffer);
    if (used + 1 < SLUICE_MHD_MESSAGE_CAPACITY) vsnprintf(buffer + used, SLUICE_MHD_MESSAGE_CAPACITY - used, format, arguments);
}

static inline enum MHD_Result sluice_mhd_refuse_request(
    void *cls, struct MHD_Connection *connection, const char *url, const char *method, const char *version,
    const char *upload_data, size_t *upload_data_size, void **request_cls)
{
    return MHD_NO;
}

/// Loads `certificate` and `key` (PEM) with `priorities` into a throwaway TLS daemon with neither socket nor thread,
/// as a serving daemon would load them. Returns 0 when they are usable; else -1 with libmicrohttpd's account in
/// `message` (SLUICE_MHD_MESSAGE_CAPACITY bytes): GnuTLS's error text, never key material. Serving daemons log
/// nothing, so this is where a bad pair gets its reason.
static inline int sluice_mhd_check_tls(const char *certificate, const char *key, const char *priorities, char *message)
{
    message[0] = 0;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0, NULL, NULL, sluice_mhd_refuse_request, NULL,
        MHD_OPTION_EXTERNAL_LOGGER, sluice_mhd_log_to_buffer, message,
        MHD_OPTION_HTTPS_MEM_CERT, certificate, MHD_OPTION_HTTPS_MEM_KEY, key,
        MHD_OPTION_HTTPS_PRIORITIES, priorities, MHD_OPTION_END);
    if (daemon == NULL) return -1;
    MHD_stop_daemon(daemon);
    return 0;
}
