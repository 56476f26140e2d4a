package dev.sharray;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void createSetGetDescriptorReopenRelease() throws Exception {
        for (Backing b : Backing.values()) {
            SharedArray a = SharedArray.builder(DType.FLOAT64, 3, 4).backing(b).create();
            assertEquals(b, a.backing());
            a.setDouble(42.5, 2, 3);
            SharedArray t = a.transpose();
            assertEquals(42.5, t.getDouble(3, 2));
            Descriptor d = Descriptor.fromBytes(t.descriptor().toBytes());
            SharedArray o = SharedArray.open(d);
            assertEquals(42.5, o.getDouble(3, 2));
            assertEquals(3, SharedArrays.localReferences(a));
            a.release();
            t.release();
            assertTrue(Files.exists(o.path()));
            o.release();
            assertFalse(Files.exists(o.path()));
            assertThrows(IllegalStateException.class, () -> o.getDouble(0, 0));
        }
    }
}
