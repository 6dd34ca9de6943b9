/* The libmicrohttpd floor for bench/hitpath: the least any server built on libmicrohttpd can do per cached
 * range. It serves one file, answering `Range: bytes=a-b` with a 206 sent as the gateway sends a cache hit
 * (from a shared mapping of the file, copied into the socket with the header in the first write) and carrying
 * the header fields of the gateway's cache hit (representation fields, Content-Range, X-Cache, X-Request-Id),
 * with the daemon flags and per-connection memory the gateway uses (epoll thread pool, suspend/resume allowed,
 * 16 KiB) and the response queued on the second access-handler call as the gateway does (queuing on the first
 * closes the connection). Nothing else: no routing, no cache lookup, no access log.
 * A benchmark reference, not part of Sluice.
 *
 * Usage: mhd_floor FILE PORT THREADS
 */
#include <fcntl.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int file;
static int64_t size;
static char *mapping;
static char last_modified[64];
static char etag[64];
static atomic_uint_fast64_t request_count;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **request) {
    static int seen;
    (void)cls, (void)url, (void)method, (void)version, (void)upload, (void)upload_size;
    if (*request == NULL) {
        *request = &seen;
        return MHD_YES;
    }
    const char *range = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Range");
    int64_t first = 0, last = size - 1;
    if (range != NULL && (sscanf(range, "bytes=%" SCNd64 "-%" SCNd64, &first, &last) != 2 || first < 0 ||
                          last < first || last >= size)) {
        return MHD_NO;
    }
    int64_t count = last - first + 1;
    struct MHD_Response *response =
        MHD_create_response_from_buffer((size_t)count, mapping + first, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    char content_range[96];
    snprintf(content_range, sizeof content_range, "bytes %" PRId64 "-%" PRId64 "/%" PRId64, first, last, size);
    char request_id[17];
    snprintf(request_id, sizeof request_id, "%016" PRIxFAST64, atomic_fetch_add(&request_count, 1));
    MHD_add_response_header(response, "Accept-Ranges", "bytes");
    MHD_add_response_header(response, "Content-Type", "application/octet-stream");
    MHD_add_response_header(response, "ETag", etag);
    MHD_add_response_header(response, "Last-Modified", last_modified);
    MHD_add_response_header(response, "Content-Range", content_range);
    MHD_add_response_header(response, "X-Cache", "HIT");
    MHD_add_response_header(response, "X-Request-Id", request_id);
    enum MHD_Result queued = MHD_queue_response(connection, range ? 206 : 200, response);
    MHD_destroy_response(response);
    return queued;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: mhd_floor FILE PORT THREADS\n");
        return 2;
    }
    struct stat info;
    file = open(argv[1], O_RDONLY | O_CLOEXEC);
    if (file < 0 || fstat(file, &info) != 0) {
        perror(argv[1]);
        return 1;
    }
    size = info.st_size;
    mapping = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, file, 0);
    if (mapping == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    snprintf(etag, sizeof etag, "\"%lx-%" PRIx64 "\"", (unsigned long)info.st_mtime, (uint64_t)size);
    struct tm modified;
    strftime(last_modified, sizeof last_modified, "%a, %d %b %Y %H:%M:%S GMT", gmtime_r(&info.st_mtime, &modified));
    struct sockaddr_in loopback = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])),
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC, 0, NULL, NULL, answer, NULL,
        MHD_OPTION_SOCK_ADDR, &loopback, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[3]),
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)1024, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "mhd_floor: cannot start on port %s\n", argv[2]);
        return 1;
    }
    pause();
    return 0;
}
