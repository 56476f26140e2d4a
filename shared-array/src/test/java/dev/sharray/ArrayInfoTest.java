package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What {@link SharedArrays#list()} reports is a value: printed, compared and kept as one. */
@ExtendWith(PrivateRoot.class)
class ArrayInfoTest {
    @Test
    void twoListingsOfAnArrayAreEqualPrintItsShapeAndCannotBeChanged() {
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4, 5)) {
            final ArrayInfo first = listed(a);
            final ArrayInfo second = listed(a);
            // before: the shape (a long[]) was compared by identity and printed as [J@49e4cb85
            assertEquals(first, second);
            assertEquals(first.hashCode(), second.hashCode());
            assertTrue(first.toString().contains("shape=(4, 5),"), first.toString());
            first.shape()[0] = 99;
            assertArrayEquals(new long[] {4, 5}, first.shape(), "the record handed out its own array");
            final Map<Long, Long> holders = new HashMap<>(Map.of(1L, 1L));
            final ArrayInfo built = new ArrayInfo(a.path(), DType.FLOAT64, new long[] {4, 5}, 4096, holders, Set.of(),
                1, true);
            holders.put(2L, 2L);
            assertEquals(1, built.totalReferences(), "the record kept the caller's map");
        }
    }

    private static ArrayInfo listed(SharedArray a) {
        return SharedArrays.list().stream().filter(i -> i.path().equals(a.path())).findFirst().orElseThrow();
    }
}
