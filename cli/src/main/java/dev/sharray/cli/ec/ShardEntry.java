package dev.sharray.cli.ec;

import java.nio.file.Path;

/**
 * One slot of a shard set as found on disk.
 *
 * @param index  shard index, 0..k+m-1
 * @param path   where the shard file is (or would be)
 * @param status what was found
 * @param detail why, for non-intact shards ({@code ""} otherwise)
 */
public record ShardEntry(int index, Path path, ShardStatus status, String detail) {
    /** @return whether the shard can be used for decoding */
    public boolean intact() {
        return status == ShardStatus.INTACT;
    }
}
