package dev.sharray.cli.ec;

/** What {@code ec verify} says about one shard. */
public enum ShardStatus {
    /** Header and body checksum are good and the shard belongs to the set. */
    INTACT,
    /** No file. */
    MISSING,
    /** Header or body does not match its checksums, or the header is malformed. */
    CORRUPTED,
    /** The file is shorter or longer than its header says. */
    TRUNCATED,
    /** A valid shard of a different encoding (another set id or geometry). */
    FOREIGN,
    /** A format version this build does not read. */
    UNSUPPORTED,
    /** The file exists but cannot be read. */
    UNREADABLE,
    /** A parity shard whose body was not read: every data shard is intact, so decoding does not need it. */
    UNCHECKED;

    /** @return the lower-case name used in reports */
    public String label() {
        return this == UNCHECKED ? "not checked" : name().toLowerCase(java.util.Locale.ROOT);
    }
}
