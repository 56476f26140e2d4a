package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The room a tmpfs file can take: MemAvailable plus SwapFree, and a cgroup's limit less usage plus its page cache. */
class MemoryRoomTest {
    @Test
    void theMachineCountsAvailableMemoryAndFreeSwap() {
        assertEquals((1000L + 300) * 1024, MemoryRoom.machine("MemTotal: 5000 kB\nMemAvailable:    1000 kB\nSwapFree:  300 kB\n"));
        assertEquals(1000L * 1024, MemoryRoom.machine("MemAvailable: 1000 kB\n"), "no swap line");
        assertEquals(Long.MAX_VALUE, MemoryRoom.machine("MemTotal: 5000 kB\n"), "no MemAvailable: unknown");
        assertEquals(Long.MAX_VALUE, MemoryRoom.machine(null));
    }

    @Test
    void aCgroupsRoomIsItsLimitLessUsagePlusDroppableCache(@TempDir Path v2, @TempDir Path v1) throws Exception {
        Files.writeString(v2.resolve("memory.max"), "10000\n");
        Files.writeString(v2.resolve("memory.current"), "4000\n");
        Files.writeString(v2.resolve("memory.stat"), "anon 1\ninactive_file 500\nactive_file 7\n");
        assertEquals(6500, MemoryRoom.cgroupRoom(v2, true));
        Files.writeString(v2.resolve("memory.current"), "10300\n");
        assertEquals(200, MemoryRoom.cgroupRoom(v2, true), "usage past the limit less cache");
        Files.writeString(v2.resolve("memory.current"), "20000\n");
        assertEquals(0, MemoryRoom.cgroupRoom(v2, true), "never negative");
        Files.writeString(v2.resolve("memory.max"), "max\n");
        assertEquals(Long.MAX_VALUE, MemoryRoom.cgroupRoom(v2, true), "no limit");

        Files.writeString(v1.resolve("memory.limit_in_bytes"), "9223372036854771712\n"); // v1's unlimited
        Files.writeString(v1.resolve("memory.usage_in_bytes"), "4000\n");
        assertEquals(Long.MAX_VALUE, MemoryRoom.cgroupRoom(v1, false));
        Files.writeString(v1.resolve("memory.limit_in_bytes"), "10000\n");
        Files.writeString(v1.resolve("memory.stat"), "inactive_file 99\ntotal_inactive_file 500\n");
        assertEquals(6500, MemoryRoom.cgroupRoom(v1, false), "v1 counts the hierarchy's total");
    }

    @Test
    void theLeastRoomOfEveryCgroupUpToTheBaseCounts(@TempDir Path root) throws Exception {
        final Path base = Files.createDirectories(root.resolve("base"));
        final Path mine = Files.createDirectories(base.resolve("slice").resolve("mine"));
        Files.writeString(mine.resolve("memory.max"), "max\n");
        Files.writeString(mine.resolve("memory.current"), "100\n");
        Files.writeString(mine.getParent().resolve("memory.max"), "10000\n"); // a limit above ours
        Files.writeString(mine.getParent().resolve("memory.current"), "9000\n");
        Files.writeString(root.resolve("memory.max"), "1\n"); // above the hierarchy's base: not ours
        Files.writeString(root.resolve("memory.current"), "1\n");
        final MemoryRoom.Cgroup own = new MemoryRoom.Cgroup(true, base, mine);
        assertEquals(1000, MemoryRoom.available(1 << 20, own));
        assertEquals(500, MemoryRoom.available(500, own), "the machine has less");
        assertEquals(1 << 20, MemoryRoom.available(1 << 20, null), "no cgroup");
    }
}
