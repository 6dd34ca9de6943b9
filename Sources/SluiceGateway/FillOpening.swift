import SluiceCore
import SluiceUpstream

/// A first read's fill, opened before the asset's content info is known: its ranged request goes out at once and
/// the content info is taken from the response's own head, so the first byte costs one upstream round trip, not a
/// `HEAD` or `PROPFIND` and then a `GET` (docs/architecture.md, "A cold miss, file by file").
///
/// The request that opened it holds the fill (as a reader of its first byte) until its body has attached to it, or
/// its answer needs no body, then releases it.
final class FillOpening: Sendable {
    private let coordinator: FillCoordinator
    /// When the request was sent: the upstream's time to first byte counts from here.
    let began = ContinuousClock.now

    init(coordinator: FillCoordinator) {
        self.coordinator = coordinator
    }

    /// The opener's place among the fill's readers.
    var reader: ReaderID { ReaderID(self) }

    /// Lets the fill go: it runs on for the readers attached to it, and stops at its chunk's end without them.
    func release() { coordinator.close(reader) }
}

/// The range a first read asks for, as far as it is known before the object's length is: a `Range` of one spec
/// with a first byte, or the whole object from byte 0.
struct OpeningRead: Equatable, Sendable {
    /// The first byte the reader wants.
    let first: Int64
    /// One past the last byte it asked for; nil when it asked for everything from `first` on.
    let end: Int64?

    /// The read a `GET` with this Range value (nil: none) opens with; nil for a suffix or a list of ranges, whose
    /// first byte depends on the length.
    init?(rangeHeader: String?) {
        guard let rangeHeader else {
            self.init(first: 0, end: nil)
            return
        }
        switch RangeHeader.parsePlain(rangeHeader) {
        case .bounded(let first, let last)?: self.init(first: first, end: last + 1)
        case .from(let first)?: self.init(first: first, end: nil)
        case .suffix?, nil: return nil
        }
    }

    init(first: Int64, end: Int64?) {
        self.first = first
        self.end = end
    }
}
