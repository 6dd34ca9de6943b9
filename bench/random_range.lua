-- wrk script: every request asks for a random `Range: bytes=a-b` of SPAN bytes inside a file of
-- SIZE bytes, at the URL's path. Usage:  wrk ... -s random_range.lua URL -- SIZE SPAN
-- No `response` hook on purpose: defining one makes wrk copy every body into Lua, which would
-- measure wrk rather than the server. Non-2xx/3xx answers still show up as errors.status.

local next_id = 1

function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
end

function init(args)
    size = tonumber(args[1])
    span = tonumber(args[2])
    if not size or not span or span > size then
        error("usage: wrk ... -s random_range.lua URL -- SIZE SPAN")
    end
    -- Different, repeatable sequences per thread.
    math.randomseed(7919 * id)
end

function request()
    local first = math.random(0, size - span)
    return wrk.format("GET", wrk.path, { ["Range"] = string.format("bytes=%d-%d", first, first + span - 1) })
end

function done(summary, latency, requests)
    local seconds = summary.duration / 1e6
    io.write(string.format(
        'BENCH_JSON {"requests": %d, "bytes": %d, "seconds": %.3f, "requestsPerSecond": %.1f, ' ..
        '"bytesPerSecond": %.0f, "latencyMs": {"mean": %.3f, "p50": %.3f, "p99": %.3f, "max": %.3f}, ' ..
        '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}}\n',
        summary.requests, summary.bytes, seconds, summary.requests / seconds, summary.bytes / seconds,
        latency.mean / 1000, latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
        summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status,
        summary.errors.timeout))
end
