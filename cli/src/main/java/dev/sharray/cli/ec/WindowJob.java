package dev.sharray.cli.ec;

/** What the workers do with the windows of a file: encode it, or rebuild shards of it. */
public sealed interface WindowJob permits EncodeJob, ReconstructJob {
}
