import Foundation
import SluiceCore

/// The identifying fields of an asset row (asset ID, content type, ETag, Last-Modified, validator) as one sealed
/// record, so that an encrypted store's index names no asset. The record is bound to the row's storage key: moved
/// to another row, it does not open.
enum AssetRowSealing {
    private static let label = "sluice index row"

    static func seal(_ row: AssetRow, _ keyring: CacheKeyring) throws(CacheError) -> [UInt8] {
        var fields: [String: Any] = ["id": row.assetID]
        fields["type"] = row.info.contentType
        fields["etag"] = row.info.etag
        fields["modified"] = row.info.lastModified?.timeIntervalSince1970
        fields["validator"] = row.validator
        guard let encoded = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else {
            throw .invalidOptions("asset row")
        }
        do {
            return try keyring.sealRecord([UInt8](encoded), label: label, context: Array(row.key.text.utf8))
        } catch {
            throw .crypto(error)
        }
    }

    /// `row` with the fields `sealed` holds; nil when it does not open under a configured key.
    static func open(_ sealed: [UInt8], into row: AssetRow, _ keyring: CacheKeyring) -> AssetRow? {
        guard let (plaintext, _) = keyring.openRecord(sealed, label: label, context: Array(row.key.text.utf8)),
            let fields = try? JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any],
            let assetID = fields["id"] as? String
        else { return nil }
        var row = row
        row.assetID = assetID
        row.info.contentType = fields["type"] as? String
        row.info.etag = fields["etag"] as? String
        row.info.lastModified = (fields["modified"] as? Double).map(Date.init(timeIntervalSince1970:))
        row.validator = fields["validator"] as? String
        return row
    }
}
