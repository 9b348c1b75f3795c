import CommandLineSpec
import MicroappCore
@_exported import MicroappSDK

// The host API: what an app's own host (its main.swift, its services and its own commands) may use, and nothing more.
// `import MicroappTool` brings the SDK (the keys and shapes its features share with it: `DependencyKey`, `Service`;
// its own baseline is scripts/check-sdk-abi's), this module's public types (`MicroappTool`, `HostConfiguration`,
// `Command`, `Arguments`, `ExitCode`) and the engine's types named here, each on purpose. The rest of the engine is
// the engine's own: a host that needs more asks for it here. HostAPITests compares every public declaration a host
// sees with Sources/MicroappTool/host-api.txt, so a change to this surface is made on purpose, never by accident.

/// The container of the app's services a host's `services` closure fills and returns.
public typealias Container = MicroappCore.Container
/// Who may use one service or state key (`.public`, `.only("auth")`), in `HostConfiguration.grants`.
public typealias GrantRule = MicroappCore.GrantRule
/// How much a feature's library is trusted (`pinned`, `untrusted`), in a `GrantRule`.
public typealias FeatureTrust = MicroappCore.FeatureTrust
/// The process's variables, folders and clocks as the host's composition root reads them (`.process`).
public typealias HostEnvironment = MicroappCore.HostEnvironment
/// An error with a code, the thing it is about, the reason and the fix: what a host's command or service throws.
public typealias Problem = MicroappCore.Problem
/// A command's declaration (name, summary, operands, options, help), for `Command.declaration`.
public typealias CommandSpec = CommandLineSpec.CommandSpec
/// An option of a host's own (`OptionSpec.value("--data", "DIR", .text, help: …)`), typed by what it reads.
public typealias OptionSpec<Value: Sendable> = CommandLineSpec.OptionSpec<Value>
/// An option whatever its value's type: what `HostConfiguration.options` and a `CommandSpec` list.
public typealias Option = CommandLineSpec.Option
/// An operand a command takes (`Operand("FEATURE", …)`), in a `CommandSpec`.
public typealias Operand = CommandLineSpec.Operand
/// How an option's words become its value (`.text`, `.integer`, `.choice(of:)`).
public typealias ValueKind<Value: Sendable> = CommandLineSpec.ValueKind<Value>
