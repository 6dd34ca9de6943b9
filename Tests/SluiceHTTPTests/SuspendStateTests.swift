import Testing

@testable import SluiceHTTP

@Suite struct SuspendStateTests {
    enum Event: Sendable, CustomStringConvertible {
        case suspend(SuspendState.SuspendDecision)
        case wake(resumes: Bool)
        case close(resumes: Bool)

        var description: String {
            switch self {
            case .suspend(let decision): "suspend->\(decision)"
            case .wake(let resumes): "wake->\(resumes)"
            case .close(let resumes): "close->\(resumes)"
            }
        }
    }

    /// Each script applies events in order and checks every answer and the final phase.
    static let scripts: [(events: [Event], final: SuspendState.Phase)] = [
        ([.suspend(.suspendConnection), .wake(resumes: true)], .running),
        ([.wake(resumes: false), .suspend(.retryNow)], .running),
        (
            [.wake(resumes: false), .wake(resumes: false), .suspend(.retryNow), .suspend(.suspendConnection)],
            .suspended
        ),
        ([.suspend(.suspendConnection), .wake(resumes: true), .wake(resumes: false), .suspend(.retryNow)], .running),
        ([.suspend(.suspendConnection), .suspend(.alreadySuspended), .wake(resumes: true)], .running),
        ([.suspend(.suspendConnection), .close(resumes: true), .wake(resumes: false), .suspend(.closed)], .closed),
        ([.close(resumes: false), .suspend(.closed), .close(resumes: false)], .closed),
        ([.wake(resumes: false), .close(resumes: false), .wake(resumes: false)], .closed),
    ]

    @Test(arguments: scripts.indices)
    func transitions(index: Int) {
        var state = SuspendState()
        for event in Self.scripts[index].events {
            switch event {
            case .suspend(let expected):
                #expect(state.suspend() == expected, "\(Self.scripts[index].events)")
            case .wake(let resumes):
                #expect(state.wake() == resumes, "\(Self.scripts[index].events)")
            case .close(let resumes):
                #expect(state.close() == resumes, "\(Self.scripts[index].events)")
            }
        }
        #expect(state.phase == Self.scripts[index].final)
    }
}
