import Foundation

/// What the store needs to know of the kernel's page cache.
enum PageCache {
    /// The largest folio (run of pages cached as one unit) the page cache may use for a file: the transparent
    /// huge page size, 2 MiB on x86-64 and on arm64 with 4 KiB pages; 2 MiB when the kernel does not say.
    static let largestFolio: Int64 = {
        let path = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let bytes = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes > 0,
            bytes & (bytes - 1) == 0
        else { return 2 << 20 }
        return bytes
    }()
}
