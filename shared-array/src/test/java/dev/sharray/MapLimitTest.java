package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A process that creates arrays until it nears the kernel's limit on map entries ({@code vm.max_map_count}) gets a
 * {@link MapLimitException} and goes on. Before, the arrays took the last entries: the create whose mapping failed
 * (the JDK's "Map failed") then loaded a class in its clean-up, HotSpot could not commit metaspace for it, and the
 * JVM died (exit 134, "insufficient memory for the Java Runtime Environment").
 */
@ExtendWith(PrivateRoot.class)
class MapLimitTest {

    @Test
    void creatingArraysUntilTheMapEntriesRunOutIsRefusedAndTheJvmGoesOn() throws Exception {
        final long limit = MapEntries.LIMIT;
        // the child takes real entries up to near the limit: a limit in the millions would take too long
        assertTrue(limit <= 1 << 20, "vm.max_map_count is " + limit + ": this test needs at most 2^20");
        try (SharedArray ours = SharedArray.create(DType.FLOAT64, 4);
             ChildJvm child = ChildJvm.start(MapLimitChild.class, List.of("-Dsharray.reaper.disabled=true"),
                 Long.toString(MapEntries.HEADROOM + 1000), HexFormat.of().formatHex(ours.descriptor().toBytes()))) {
            final String refused = child.expect("refused after ");
            assertTrue(refused.contains("vm.max_map_count"), refused);
            final int arrays = Integer.parseInt(refused.substring(0, refused.indexOf(':')));
            assertTrue(arrays > 0, refused);
            assertEquals("kept .ref mappings 0", child.readLine(), "a create refused for want of map entries leaves"
                + " .ref mappings kept without a reference");
            final String open = child.readLine();
            assertTrue(open.startsWith("open refused: ") && open.contains(ours.path().toString()), open);
            assertEquals("files " + 2 * arrays + " for " + arrays + " arrays", child.readLine(),
                "the refused create left files, or a created one lost them");
            assertEquals("created after release", child.readLine());
            assertEquals("healthy", child.readLine());
            assertEquals(0, child.finish());
            assertEquals(1, SharedArrays.totalReferences(ours), "the refused open kept a reference");
        }
    }
}
