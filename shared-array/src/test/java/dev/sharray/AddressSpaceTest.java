package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An array larger than the address space this process may still map ({@code ulimit -v}) fails with an exception that
 * names the file and the limit, with either backing, and leaves no file. Before, the MAPPED_FILE backing threw
 * Chronicle's {@code IORuntimeException: java.io.IOException: Map failed}, and AGRONA said "Map failed" only.
 */
class AddressSpaceTest {

    @Test
    void anArrayBeyondTheAddressSpaceLimitIsRefusedNamingTheLimit(@TempDir Path root) throws Exception {
        final long limit = 1_500_000_000L;
        try (ChildJvm child = ChildJvm.startWrapped(List.of("prlimit", "--as=" + limit), AddressSpaceChild.class,
                List.of("-XX:CompressedClassSpaceSize=64m", "-XX:ReservedCodeCacheSize=32m", "-Xmx128m",
                    "-Dsharray.reaper.disabled=true"), root.toString(), "1200000000")) {
            for (String backing : List.of("MAPPED_FILE", "AGRONA")) {
                final String outcome = child.expect(backing + " ");
                assertTrue(outcome.startsWith("java.io.UncheckedIOException: cannot map " + root)
                    && outcome.contains("(1200001024 bytes): the kernel refused the mapping")
                    && outcome.contains("ulimit -v: " + limit + " bytes"), outcome);
            }
            assertEquals("files 0", child.readLine(), "the refused creates left files");
            assertEquals("small created", child.readLine());
            assertEquals(0, child.finish());
        }
    }
}
