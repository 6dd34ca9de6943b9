// swift-tools-version:6.0
// bench/hitpath's Swift floor: a reference server, built by the benchmark, not part of Sluice.
import PackageDescription

let package = Package(
    name: "swift-floor",
    targets: [
        .systemLibrary(name: "CSwiftFloor", pkgConfig: "libmicrohttpd"),
        .executableTarget(name: "swift-floor", dependencies: ["CSwiftFloor"]),
    ]
)
