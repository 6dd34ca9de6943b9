#pragma once
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
