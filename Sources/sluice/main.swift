import Foundation

// Top-level code is main-actor isolated; everything that libmicrohttpd or libcurl may call back lives elsewhere.
exit(await CommandLine.run(Array(CommandLine.arguments.dropFirst())))
