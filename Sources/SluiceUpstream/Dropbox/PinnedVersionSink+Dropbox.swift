extension PinnedVersionSink {
    /// The sink of a `files/download` naming the rev of `version` (or none): a 409, whose body the transfer does not
    /// keep, is a revision that no longer exists (the file changed), or by path a file that is gone.
    static func dropboxDownload(_ sink: any FetchSink, version: String?) -> PinnedVersionSink {
        PinnedVersionSink(sink, version: version) { error in
            guard error == .badStatus(409) else { return error }
            return version == nil ? .notFound : .changed
        }
    }
}
