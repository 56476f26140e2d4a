package dev.sharray.cli.ec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class Crc32cTest {
    private static int crc(byte[] b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    @Test
    void combineMatchesTheCrcOfTheConcatenation() {
        Random r = new Random(1);
        byte[] data = new byte[1 << 20];
        r.nextBytes(data);
        for (int t = 0; t < 200; t++) {
            int a = r.nextInt(data.length);
            int b = r.nextInt(data.length - a + 1);
            assertEquals(crc(data, 0, a + b), Crc32c.combine(crc(data, 0, a), crc(data, a, b), b), a + "+" + b);
        }
        assertEquals(crc(data, 0, 5), Crc32c.combine(crc(data, 0, 5), crc(data, 5, 0), 0));
    }
}
