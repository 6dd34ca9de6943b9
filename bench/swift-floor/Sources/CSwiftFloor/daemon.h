#pragma once
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

/// MHD_start_daemon takes its options as C varargs, which Swift cannot pass: the floor's daemon on the loopback
/// `port`, with the daemon flags, thread count and memory per connection of bench/mhd_floor.c (the gateway's).
static inline struct MHD_Daemon *swift_floor_start(MHD_AccessHandlerCallback answer, void *context,
                                                   unsigned short port, unsigned threads) {
    struct sockaddr_in loopback = {.sin_family = AF_INET, .sin_port = htons(port),
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    return MHD_start_daemon(MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC, 0, NULL, NULL,
                            answer, context, MHD_OPTION_SOCK_ADDR, &loopback, MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, 1024u, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384,
                            MHD_OPTION_END);
}
