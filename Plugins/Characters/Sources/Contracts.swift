// The service shapes this feature shares with the host: a module of plain Codable structs, linked into each image.
@_exported import DemoContracts
