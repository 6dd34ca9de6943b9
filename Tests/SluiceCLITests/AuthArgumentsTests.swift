import Testing

@testable import sluice

@Suite struct AuthArgumentsTests {
    @Test(
        "login takes one upstream, a config, and --browser or --paste with a timeout",
        arguments: [
            (["login", "od"], "od", nil, AuthArguments.Flow.deviceCode, Duration.seconds(300)),
            (["login", "od", "--config", "s.json"], "od", "s.json", .deviceCode, .seconds(300)),
            (["login", "--browser", "od"], "od", nil, .browser, .seconds(300)),
            (["login", "od", "--browser", "--timeout", "90s"], "od", nil, .browser, .seconds(90)),
            (["login", "od", "--paste"], "od", nil, .paste, .seconds(300)),
            (
                ["login", "od", "--paste", "--timeout", "10m", "--config", "s.json"], "od", "s.json", .paste,
                .seconds(600)
            ),
            (["login", "od", "--paste", "--paste"], "od", nil, .paste, .seconds(300)),
        ] as [([String], String, String?, AuthArguments.Flow, Duration)])
    func parses(
        _ arguments: [String], _ upstream: String, _ config: String?, _ flow: AuthArguments.Flow, _ timeout: Duration
    ) throws {
        let parsed = try AuthArguments(arguments)
        #expect(parsed.upstream == upstream)
        #expect(parsed.configPath == config)
        #expect(parsed.flow == flow)
        #expect(parsed.timeout == timeout)
    }

    @Test(
        "a wrong command line says what is wrong",
        arguments: [
            (["logout", "od"], "the subcommand is login"),
            (["login"], "login needs one UPSTREAM"),
            (["login", "od", "nas"], "login needs one UPSTREAM"),
            (["login", "od", "--paste", "--browser"], "--browser and --paste exclude each other"),
            (["login", "od", "--browser", "--paste"], "--browser and --paste exclude each other"),
            (["login", "od", "--timeout", "90s"], "--timeout goes with --browser or --paste"),
            (["login", "od", "--paste", "--timeout"], "--timeout needs a value"),
            (["login", "od", "--paste", "--timeout", "soon"], "--timeout needs a duration"),
            (["login", "od", "--config"], "--config needs a value"),
            (["login", "od", "--pasted"], "unknown option --pasted"),
            (["login", "box", "--port", "8765"], "--port goes with --browser or --paste"),
            (["login", "box", "--browser", "--port"], "--port needs a value"),
            (["login", "box", "--browser", "--port", "0"], "--port needs a port number from 1 to 65535, not 0"),
            (["login", "box", "--paste", "--port", "65536"], "--port needs a port number from 1 to 65535"),
            (["login", "box", "--browser", "--port", "http"], "--port needs a port number from 1 to 65535"),
            (["login", "box", "--browser", "--port", "-1"], "--port needs a port number from 1 to 65535"),
        ])
    func refuses(_ arguments: [String], _ message: String) {
        #expect {
            try AuthArguments(arguments)
        } throws: { error in
            (error as? CommandError)?.message.contains(message) == true
        }
    }

    @Test(
        "--port fixes the loopback redirect's port for --browser and --paste; without it the port is random",
        arguments: [
            (["login", "box", "--browser"], AuthArguments.Flow.browser, nil),
            (["login", "box", "--browser", "--port", "8765"], .browser, 8_765),
            (["login", "--port", "1", "box", "--paste"], .paste, 1),
            (["login", "box", "--paste", "--port", "65535", "--timeout", "1m"], .paste, 65_535),
        ] as [([String], AuthArguments.Flow, Int?)])
    func port(_ arguments: [String], _ flow: AuthArguments.Flow, _ port: Int?) throws {
        let parsed = try AuthArguments(arguments)
        #expect(parsed.upstream == "box" && parsed.flow == flow && parsed.port == port)
    }
}
