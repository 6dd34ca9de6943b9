import SluiceCore

extension AssetID {
    /// The asset's admin URL path, `/admin/cache/assets/{upstream}/{percent-encoded path}` (the encoding of its
    /// stream URL), with a last segment named `prefetch` written `%70refetch` so that it is not taken for the
    /// prefetch call.
    public var adminPath: String {
        var encoded = path.percentEncoded
        if path.segments.last == "prefetch" { encoded = encoded.dropLast("prefetch".count) + "%70refetch" }
        return AdminRoute.assetsPrefix + upstream + "/" + encoded
    }
}
