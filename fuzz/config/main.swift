import CFuzzer
import Foundation
import SluiceCore

/// The configuration reader on arbitrary bytes: it returns a configuration or a list of errors, never traps.
/// Relative paths resolve under a folder that does not exist, so no input reads a file of the machine running it.
func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let bytes = Data(bytes: data, count: size)
    do {
        _ = try ConfigLoader.parse(
            data: bytes, environment: ["SLUICE_FUZZ_SECRET": "s3cret"], baseDirectory: "/nonexistent/sluice-fuzz")
    } catch {
        precondition(!error.errors.isEmpty, "refused without an error")
    }
}

exit(
    SluiceFuzz(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
        fuzzConfig(data!, size)
        return 0
    })
