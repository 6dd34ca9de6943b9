import CCurl

// libcurl callbacks. All are called on the curl thread, from inside curl_multi_perform or curl_easy_pause, with the
// transfer's retained `Unmanaged` context (released when the transfer is removed from the multi handle).

/// CURLOPT_WRITEFUNCTION trampoline.
func curlWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.write(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// CURLOPT_HEADERFUNCTION trampoline: header lines are read later through curl_easy_nextheader.
func curlHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().headerArrived()
    return size * count
}

/// CURLOPT_PREREQFUNCTION trampoline: arms the first-byte deadline, or aborts a request that would reach one of the
/// gateway's own listeners.
func curlPrereqCallback(
    _ context: UnsafeMutableRawPointer?, _ primaryIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?, _ primaryPort: Int32, _ localPort: Int32
) -> Int32 {
    guard let context else { return Int32(CURL_PREREQFUNC_OK) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let peer = (ip: primaryIP.map { String(cString: $0) } ?? "", port: Int(primaryPort))
    let local = localIP.map { String(cString: $0) } ?? ""
    return Int32(transfer.requestWillBeSent(to: peer, from: local) ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT)
}
