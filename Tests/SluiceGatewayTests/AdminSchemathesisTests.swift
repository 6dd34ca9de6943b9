import Foundation
import SluiceTestSupport
import Testing

@Suite("openapi.yaml against the live server")
struct AdminSchemathesisTests {
    /// Runs `.ci/schemathesis.sh` with the built binary: Schemathesis (from `.venv/`, installed by
    /// `scripts/install-deps --test`) checks every operation of openapi.yaml with every check; any failure or 5xx
    /// fails the test.
    @Test("Schemathesis finds no difference between openapi.yaml and the server", .timeLimit(.minutes(10)))
    func schemathesis() async throws {
        let sluice = try Repository.sluiceExecutable()
        let run = try await CommandRun.run(
            Repository.root + "/.ci/schemathesis.sh", [sluice], timeout: .seconds(540))
        #expect(run.status == 0, "\(run.output.suffix(6_000))\n\(run.errors.suffix(3_000))")
        #expect(run.output.contains("No issues found"))
    }
}
