import TouchstoneCLI

// Everything lives in TouchstoneCLI; this executable only links it, with the Swift runtime
// linked in statically (Package.swift, `staticSwiftRuntime`).
await TouchstoneCommand.start()
