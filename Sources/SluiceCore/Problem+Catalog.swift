extension Problem {
    /// 400: the asset path or request is malformed (docs/api.md, Errors).
    public static func badRequest(_ detail: String) -> Problem {
        Problem(slug: "bad-request", title: "Bad request", status: 400, detail: detail)
    }

    /// 403: a signature is missing, expired or wrong, or an admin token is missing (docs/api.md, Admin API).
    public static func forbidden(_ detail: String) -> Problem {
        Problem(slug: "forbidden", title: "Forbidden", status: 403, detail: detail)
    }

    /// 404: unknown upstream or object.
    public static func notFound(_ detail: String) -> Problem {
        Problem(slug: "not-found", title: "Not found", status: 404, detail: detail)
    }

    /// 405: a method the resource does not serve.
    public static func methodNotAllowed(_ detail: String) -> Problem {
        Problem(slug: "method-not-allowed", title: "Method not allowed", status: 405, detail: detail)
    }

    /// 415: the object exists but is in a form the gateway cannot stream (a Google Docs editors file).
    public static func unsupportedMediaType(_ detail: String) -> Problem {
        Problem(slug: "unsupported-media-type", title: "Unsupported media type", status: 415, detail: detail)
    }

    /// 500: a fault in the gateway itself.
    public static func internalError(_ detail: String) -> Problem {
        Problem(slug: "internal-error", title: "Internal error", status: 500, detail: detail)
    }

    /// 508: the request came back to the gateway through its own upstream request (its `Via` pseudonym).
    public static func loopDetected(_ detail: String) -> Problem {
        Problem(slug: "loop-detected", title: "Loop detected", status: 508, detail: detail)
    }

    /// 502: the upstream refused our credentials or answered something unusable.
    public static func badGateway(_ detail: String) -> Problem {
        Problem(slug: "bad-gateway", title: "Bad gateway", status: 502, detail: detail)
    }

    /// 503: the gateway is overloaded or shutting down.
    public static func unavailable(_ detail: String) -> Problem {
        Problem(slug: "unavailable", title: "Service unavailable", status: 503, detail: detail)
    }

    /// 504: the upstream did not answer in time.
    public static func gatewayTimeout(_ detail: String) -> Problem {
        Problem(slug: "gateway-timeout", title: "Gateway timeout", status: 504, detail: detail)
    }
}
