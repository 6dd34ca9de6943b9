import Foundation
import SluiceCore
import SluiceGateway

/// `sluice sign ASSET_ID [--ttl DURATION] [--config FILE]`: prints the signed stream URL path of an asset of a signed
/// upstream, valid for `--ttl` (the configured default by default, at most `signing.maxTTL`).
enum SignCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var operands: [String] = []
        var ttlText: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--ttl":
                guard let value = rest.popFirst() else { return usage("--ttl needs a duration") }
                ttlText = value
            case "--config":
                guard rest.popFirst() != nil else { return usage("--config needs a file path") }
            default:
                guard !argument.hasPrefix("--") else { return usage("unknown option \(argument)") }
                operands.append(argument)
            }
        }
        guard operands.count == 1 else { return usage("sign needs one ASSET_ID") }
        let asset: AssetID
        do {
            asset = try AssetID(parsing: operands[0])
        } catch {
            return usage("\(operands[0]) is not an asset ID (\(error))")
        }
        guard let path = ConfigArgument.path(in: arguments) else { return ExitStatus.usage }
        guard let config = ConfigArgument.load(path) else { return ExitStatus.badConfig }
        guard let upstream = config.upstreams[asset.upstream] else {
            printError("sluice sign: no upstream named \"\(asset.upstream)\"")
            return ExitStatus.failure
        }
        guard upstream.access == .signed, let signing = config.signing else {
            printError("sluice sign: upstream \"\(asset.upstream)\" is public; its URLs need no signature")
            return ExitStatus.failure
        }
        var ttl: Duration?
        if let ttlText {
            guard let parsed = try? DurationParser.parse(ttlText), parsed > .zero else {
                return usage("--ttl needs a positive duration such as 1h")
            }
            ttl = parsed
        }
        guard
            let (url, _) = URLSigner(signing).sign(
                path: asset.streamPath, ttl: ttl, now: Int64(Date().timeIntervalSince1970))
        else {
            printError("sluice sign: --ttl \(ttlText ?? "") is longer than signing.maxTTL")
            return ExitStatus.failure
        }
        print(url)
        return 0
    }

    private static func usage(_ message: String) -> Int32 {
        printError("sluice sign: \(message)")
        return ExitStatus.usage
    }
}
