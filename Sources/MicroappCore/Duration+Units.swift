extension Duration {
    /// The duration in seconds as a `Double` (`TimeInterval`'s unit): what rates and `DispatchTime` arithmetic take.
    package var timeInterval: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in whole milliseconds, rounded down: what `poll` and the figures in notices take.
    package var wholeMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
