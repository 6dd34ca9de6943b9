import Glibc
import Synchronization

/// Decrypted segments of recently read sealed chunks, so that hot hits copy plaintext instead of decrypting again.
///
/// The plaintext lives in one anonymous mapping that is locked in RAM (`mlock`), so it is never written to swap;
/// where the process may not lock that much (`RLIMIT_MEMLOCK`), it is at least kept out of core dumps
/// (`MADV_DONTDUMP`). Bounded: a fixed number of segment slots, reused in clock (second-chance LRU) order. A segment
/// is known by its chunk's write ID as well as its position, so a chunk written again never finds the old plaintext.
/// Thread-safe: one mutex, held while a segment is copied in or out (at most 64 KiB).
final class SegmentMemory: @unchecked Sendable {
    /// One segment of one chunk write.
    struct SegmentID: Hashable {
        var key: StorageKey
        var chunk: Int64
        var segment: Int64
        var writeID: UInt64
    }

    private struct Slots {
        var byID: [SegmentID: Int] = [:]
        var owners: [SegmentID?]
        var sizes: [Int]
        var referenced: [Bool]
        var hand = 0
    }

    /// Whether the memory is locked in RAM (otherwise only excluded from core dumps).
    let isLocked: Bool
    private let base: UnsafeMutableRawPointer?
    private let bytes: Int
    private let slotSize: Int
    private let slots: Mutex<Slots>

    /// Memory for `capacity` bytes of segments of `slotSize` bytes (at least one slot).
    init(capacity: Int64, slotSize: Int64) {
        let count = max(1, Int(capacity / slotSize))
        self.slotSize = Int(slotSize)
        bytes = count * Int(slotSize)
        let mapped = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        base = mapped == MAP_FAILED ? nil : mapped
        if let base {
            _ = madvise(base, bytes, MADV_DONTDUMP)
            _ = madvise(base, bytes, MADV_DONTFORK)
            isLocked = mlock(base, bytes) == 0
        } else {
            isLocked = false
        }
        slots = Mutex(
            Slots(
                owners: Array(repeating: nil, count: base == nil ? 0 : count), sizes: Array(repeating: 0, count: count),
                referenced: Array(repeating: false, count: count)))
    }

    deinit {
        guard let base else { return }
        explicit_bzero(base, bytes)
        if isLocked { munlock(base, bytes) }
        munmap(base, bytes)
    }

    /// Copies bytes `offset..<offset + out.count` of segment `id` into `out`; false when the segment is not held.
    func copy(_ id: SegmentID, from offset: Int, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base else { return false }
        return slots.withLock { slots in
            guard let slot = slots.byID[id], offset + out.count <= slots.sizes[slot] else { return false }
            slots.referenced[slot] = true
            out.copyMemory(from: UnsafeRawBufferPointer(start: base + slot * slotSize + offset, count: out.count))
            return true
        }
    }

    /// Keeps a copy of segment `id`'s plaintext, reusing the least recently used slot.
    func insert(_ id: SegmentID, _ plaintext: UnsafeRawBufferPointer) {
        guard let base, plaintext.count <= slotSize else { return }
        slots.withLock { slots in
            guard slots.byID[id] == nil, !slots.owners.isEmpty else { return }
            while slots.referenced[slots.hand] {
                slots.referenced[slots.hand] = false
                slots.hand = (slots.hand + 1) % slots.owners.count
            }
            let slot = slots.hand
            slots.hand = (slot + 1) % slots.owners.count
            if let previous = slots.owners[slot] { slots.byID[previous] = nil }
            UnsafeMutableRawBufferPointer(start: base + slot * slotSize, count: plaintext.count)
                .copyMemory(from: plaintext)
            slots.owners[slot] = id
            slots.sizes[slot] = plaintext.count
            slots.byID[id] = slot
        }
    }

    /// Wipes the segments of the asset stored under `key` (purged: its plaintext must not linger).
    func forget(_ key: StorageKey) {
        forget { $0.key == key }
    }

    /// Wipes every segment.
    func forgetAll() {
        forget { _ in true }
    }

    private func forget(where matches: (SegmentID) -> Bool) {
        guard let base else { return }
        slots.withLock { slots in
            for (id, slot) in slots.byID where matches(id) {
                explicit_bzero(base + slot * slotSize, slots.sizes[slot])
                slots.byID[id] = nil
                slots.owners[slot] = nil
                slots.sizes[slot] = 0
                slots.referenced[slot] = false
            }
        }
    }
}
