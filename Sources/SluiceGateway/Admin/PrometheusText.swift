import Foundation

/// Builds a Prometheus text exposition (format 0.0.4): `# HELP` and `# TYPE` lines per metric family, then its
/// samples, label values escaped as the format requires.
struct PrometheusText {
    /// `Content-Type` of the exposition.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The text built so far.
    private(set) var text = ""

    /// Starts a metric family.
    mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// Adds one sample; `labels` in the order given.
    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        sample(name, labels, text: Self.format(value))
    }

    /// Adds one integer sample; `labels` in the order given.
    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int64) {
        sample(name, labels, text: String(value))
    }

    private mutating func sample(_ name: String, _ labels: [(String, String)], text value: String) {
        let rendered = labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
        text += name + (rendered.isEmpty ? "" : "{\(rendered)}") + " " + value + "\n"
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escapeLabel(_ value: String) -> String {
        escapeHelp(value).replacingOccurrences(of: "\"", with: "\\\"")
    }

    /// Help text with `\` and line feeds escaped.
    static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A sample value: Go-style float text, `+Inf` for infinity.
    static func format(_ value: Double) -> String {
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value.isNaN { return "NaN" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
