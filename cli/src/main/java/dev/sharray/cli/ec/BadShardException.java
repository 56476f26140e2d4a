package dev.sharray.cli.ec;

/** A shard file that cannot be used; the message says why, for the verify report. */
public class BadShardException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param reason why the shard is unusable */
    public BadShardException(String reason) {
        super(reason);
    }

    /** A header of a format version this build does not read. */
    public static final class Version extends BadShardException {
        private static final long serialVersionUID = 1L;
        private final int version;

        /** @param version the version found */
        public Version(int version) {
            super("unsupported format version " + version + " (this sharray reads version " + ShardHeader.VERSION + ")");
            this.version = version;
        }

        /** @return the version found */
        public int version() {
            return version;
        }
    }
}
