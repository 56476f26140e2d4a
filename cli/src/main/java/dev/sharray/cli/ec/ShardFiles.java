package dev.sharray.cli.ec;

import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/** Names of shard files in a shard directory: {@code shard-00.sre}, {@code shard-01.sre}, ... */
public final class ShardFiles {
    /** Matches shard file names and captures the index. */
    public static final Pattern NAME = Pattern.compile("shard-(\\d{2,3})\\.sre");

    private ShardFiles() {
    }

    /**
     * @param dir   the shard directory
     * @param index shard index
     * @return the shard file's path
     */
    public static Path shard(Path dir, int index) {
        return dir.resolve(String.format(Locale.ROOT, "shard-%02d.sre", index));
    }
}
