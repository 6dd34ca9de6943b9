// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sluice", targets: ["sluice"])
    ],
    targets: [
        // Thin C wrappers: a module map and a shim header each, imported by exactly one adapter module.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        .target(name: "SluiceCore"),
        .target(name: "SluiceCrypto", dependencies: ["COpenSSL", "CZlib"]),
        .target(name: "SluiceHTTP", dependencies: ["CMicroHTTPD"]),
        .target(name: "SluiceUpstream", dependencies: ["CCurl", "SluiceCore", "SluiceCrypto"]),
        .target(name: "SluiceCache", dependencies: ["CSQLite", "SluiceCore", "SluiceCrypto"]),
        .target(
            name: "SluiceGateway",
            dependencies: ["SluiceCore", "SluiceCrypto", "SluiceHTTP", "SluiceUpstream", "SluiceCache"]
        ),
        .executableTarget(
            name: "sluice", dependencies: ["SluiceCore", "SluiceHTTP", "SluiceUpstream", "SluiceGateway"]),

        .target(
            name: "SluiceTestSupport", dependencies: ["SluiceCore", "SluiceGateway"], path: "Tests/SluiceTestSupport"),
        .testTarget(name: "SluiceCoreTests", dependencies: ["SluiceCore"]),
        .testTarget(name: "SluiceCryptoTests", dependencies: ["SluiceCrypto"]),
        .testTarget(name: "SluiceHTTPTests", dependencies: ["SluiceHTTP", "SluiceTestSupport"]),
        .testTarget(name: "SluiceUpstreamTests", dependencies: ["SluiceUpstream", "SluiceTestSupport"]),
        .testTarget(name: "SluiceCacheTests", dependencies: ["SluiceCache", "SluiceTestSupport"]),
        .testTarget(name: "SluiceGatewayTests", dependencies: ["SluiceGateway", "SluiceTestSupport"]),
        .testTarget(name: "SluiceCLITests", dependencies: ["sluice", "SluiceCore", "SluiceUpstream"]),
        .testTarget(name: "IntegrationTests", dependencies: ["SluiceGateway", "SluiceCache", "SluiceTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer harnesses under fuzz/ (`make fuzz`): declared only when SLUICE_FUZZ is set, so that the normal build
// neither compiles nor links them. Each reaches internal parsers through `@testable import` and starts libFuzzer's driver
// through CFuzzer.
if Context.environment["SLUICE_FUZZ"] != nil {
    let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
        ("range", ["SluiceCore"]),
        ("asset-path", ["SluiceCore", "SluiceGateway"]),
        ("config", ["SluiceCore"]),
        ("propfind", ["SluiceUpstream"]),
        ("dropbox-json", ["SluiceCore", "SluiceUpstream"]),
        ("signature", ["SluiceCore", "SluiceGateway"]),
    ]
    package.targets += harnesses.map {
        .executableTarget(name: "fuzz-\($0.name)", dependencies: ["CFuzzer"] + $0.dependencies, path: "fuzz/\($0.name)")
    }
    package.targets.append(.systemLibrary(name: "CFuzzer", path: "fuzz/CFuzzer"))
}
