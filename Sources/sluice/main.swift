import Foundation
import SluiceCore

// Top-level code is main-actor isolated; everything that libmicrohttpd or libcurl may call back lives elsewhere.
let status = await CommandLine.run(Array(CommandLine.arguments.dropFirst()))
// Log lines are buffered: the last of them are written before the process ends.
LogWriter.standardError.flush()
exit(status)
