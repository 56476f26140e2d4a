package dev.sharray.reducers;

import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arrays of references ({@code String[]}, {@code double[][]}, arrays of records, enums, user types, {@code Object[]})
 * cross with their component class. Before, every one of them was refused on write: "no reducer for double[][]".
 */
class ObjectArraysTest {
    enum Colour { RED, GREEN }

    record Point(double x, double y) { }

    /** Arrays as record components: a record's equals compares them by identity, so tests compare the parts. */
    record Table(String[] header, double[][] rows, Colour[] colours) { }

    /** A user type with a reducer: arrays of it cross through that reducer. */
    static final class Money {
        final long cents;

        Money(long cents) {
            this.cents = cents;
        }
    }

    public static final class MoneyReducer implements Reducer<Money> {
        @Override
        public Class<Money> type() {
            return Money.class;
        }

        @Override
        public void write(Money value, ValueWriter out) {
            out.writeLong(value.cents);
        }

        @Override
        public Money read(ValueReader in) {
            return new Money(in.readLong());
        }
    }

    /** Set when {@link Tripwire} is initialised (a field of its own would initialise it when read). */
    static volatile boolean tripped;

    /** A class no reducer handles, whose initialisation the decoder must never cause. */
    static final class Tripwire {
        static {
            tripped = true;
        }
    }

    private static Object roundTrip(Reducers r, Object value) {
        return r.fromBytes(r.toBytes(value));
    }

    private static void assertCrosses(Object array) {
        final Object back = roundTrip(Reducers.defaults(), array);
        assertNotSame(array, back);
        assertSame(array.getClass(), back.getClass(), "rebuilt with its own component class");
        assertTrue(Arrays.deepEquals(new Object[] {array}, new Object[] {back}),
            Arrays.deepToString(new Object[] {array}) + " came back as " + Arrays.deepToString(new Object[] {back}));
    }

    @Test
    void arraysOfEverythingTheRegistryWritesCrossWithTheirComponentClass() {
        assertCrosses(new String[] {"a", null, "ünï ✓", ""});
        assertCrosses(new String[0]);
        assertCrosses(new double[][] {{1, 2, 3}, {}, null, {Double.NaN, -0.0}});
        assertCrosses(new double[0][]);
        assertCrosses(new int[][] {{1}, {2, 3}});
        assertCrosses(new long[][][] {{{1L}, {2L, 3L}}, {}});
        assertCrosses(new String[][] {{"a", "b"}, {null}, null});
        assertCrosses(new Integer[] {1, null, -7});
        assertCrosses(new Double[] {1.5, Double.NEGATIVE_INFINITY});
        assertCrosses(new Boolean[] {true, false, null});
        assertCrosses(new Character[] {'x'});
        assertCrosses(new Colour[] {Colour.GREEN, Colour.RED, null});
        assertCrosses(new Point[] {new Point(1, 2), null});
        assertCrosses(new Object[] {1, "two", 3.0, null, Colour.RED, new Point(0, 0), new double[] {4}, new String[] {"x"},
            List.of(5), Map.of("k", 6)});
        assertCrosses(new Number[] {1, 2.5, 3L}); // an abstract component: each element crosses on its own
        assertCrosses(new CharSequence[] {"an interface component"});
        assertCrosses(new List<?>[] {List.of(1, 2), new ArrayList<>()});
        final Object[] deep = {new Object[] {new Object[] {"three levels"}}};
        assertCrosses(deep);
    }

    @Test
    void arraysOfAUserReducersTypeCrossThroughThatReducer() {
        final Reducers r = Reducers.defaults().with(new MoneyReducer());
        final Money[] back = (Money[]) roundTrip(r, new Money[] {new Money(5), null, new Money(-1)});
        assertEquals(3, back.length);
        assertEquals(5, back[0].cents);
        assertEquals(null, back[1]);
        assertEquals(-1, back[2].cents);
        final ReducerException e = assertThrows(ReducerException.class, () -> Reducers.defaults().toBytes(new Money[0]));
        assertTrue(e.getMessage().startsWith("no reducer for " + Money.class.getTypeName() + "[]: an array crosses when"
            + " its element class does, and no reducer handles " + Money.class.getTypeName() + ": make it a record, or"
            + " register a Reducer<Money>"), e.getMessage());
    }

    @Test
    void arraysCrossAsRecordComponentsAndInsideCollections() {
        final Reducers r = Reducers.defaults();
        final Table table = new Table(new String[] {"x", "y"}, new double[][] {{1, 2}, {3, 4}},
            new Colour[] {Colour.RED});
        final Table back = (Table) roundTrip(r, table);
        assertArrayEquals(table.header(), back.header());
        assertTrue(Arrays.deepEquals(table.rows(), back.rows()));
        assertArrayEquals(table.colours(), back.colours());

        final Map<String, Object> map = new LinkedHashMap<>();
        map.put("names", new String[] {"a", "b"});
        map.put("matrix", new double[][] {{1}, {2}});
        map.put("points", new Point[] {new Point(3, 4)});
        final Map<?, ?> mapBack = (Map<?, ?>) roundTrip(r, map);
        assertEquals(map.keySet(), mapBack.keySet());
        for (String k : map.keySet()) {
            assertSame(map.get(k).getClass(), mapBack.get(k).getClass(), k);
            assertTrue(Arrays.deepEquals((Object[]) map.get(k), (Object[]) mapBack.get(k)), k);
        }
        final List<?> listBack = (List<?>) roundTrip(r, List.of((Object) new String[] {"in a list"}));
        assertArrayEquals(new String[] {"in a list"}, (String[]) listBack.get(0));
    }

    @Test
    void anArrayWhoseElementsCannotCrossIsRefusedOnWriteNamingWhy() {
        final Reducers r = Reducers.defaults();
        final ReducerException plain = assertThrows(ReducerException.class, () -> r.toBytes(new Tripwire[1]));
        assertTrue(plain.getMessage().contains(Tripwire.class.getTypeName()), plain.getMessage());
        final ReducerException object = assertThrows(ReducerException.class,
            () -> r.toBytes(new Object[] {"fine", new Object()}));
        assertTrue(object.getMessage().startsWith("no reducer for java.lang.Object"), object.getMessage());
        // a LinkedList[] would arrive holding ArrayLists, which it cannot hold: refused here, naming the element
        final LinkedList<?>[] lists = {new LinkedList<>(List.of(1))};
        final ReducerException linked = assertThrows(ReducerException.class, () -> r.toBytes(lists));
        assertTrue(linked.getMessage().startsWith("element 0 of a java.util.LinkedList[] is declared"), linked.getMessage());
    }

    @Test
    void rowsAboveMaxBytesAreSharedOncePerSessionLikeAnyLargePrimitiveArray() {
        final double[] big = new double[1000];
        Arrays.fill(big, 2.0);
        final double[][] matrix = {big, big, {1}};
        try (SharingSession session = new SharingSession(1024, null); OpenedArrays opened = new OpenedArrays()) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, session);
            w.writeValue(matrix);
            w.writeValue(new Object[] {matrix, big});
            assertEquals(1, session.size(), "one shared copy of the one big row, however often it appears");
            assertTrue(w.position() < 1000, "descriptors, not data: " + w.position() + " bytes");
            final ValueReader in = new ValueReader(Reducers.defaults()).wrap(buffer, 0, w.position(), opened);
            assertTrue(Arrays.deepEquals(matrix, in.readValue(double[][].class)));
            final Object[] second = in.readValue(Object[].class);
            assertTrue(Arrays.deepEquals(matrix, (double[][]) second[0]));
            assertArrayEquals(big, (double[]) second[1]);
            assertEquals(0, in.remaining());
        }
    }

    @Test
    void arraysOfHeapAndSharedArraysCrossLikeTheirElements() {
        final dev.sharray.HeapArray heap = dev.sharray.HeapArray.of(new double[] {1, 2, 3, 4}, 2, 2);
        try (SharingSession session = new SharingSession(1024, null); OpenedArrays opened = new OpenedArrays();
             dev.sharray.SharedArray shared = dev.sharray.SharedArray.create(dev.sharray.DType.INT32, 3)) {
            shared.setInt(7, 1);
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, session);
            w.writeValue(new dev.sharray.HeapArray[] {heap, null});
            w.writeValue(new dev.sharray.NdArray[] {shared, heap});
            final ValueReader in = new ValueReader(Reducers.defaults()).wrap(buffer, 0, w.position(), opened);
            final dev.sharray.HeapArray[] heaps = in.readValue(dev.sharray.HeapArray[].class);
            assertArrayEquals(new long[] {2, 2}, heaps[0].shape());
            assertArrayEquals((double[]) heap.data(), (double[]) heaps[0].data());
            assertEquals(null, heaps[1]);
            final dev.sharray.NdArray[] mixed = in.readValue(dev.sharray.NdArray[].class);
            assertEquals(shared.path(), assertInstanceOf(dev.sharray.SharedArray.class, mixed[0]).path());
            assertArrayEquals(new int[] {0, 7, 0}, ((dev.sharray.SharedArray) mixed[0]).toIntArray());
            assertArrayEquals((double[]) heap.data(), (double[]) assertInstanceOf(dev.sharray.HeapArray.class, mixed[1]).data());
            assertEquals(0, in.remaining());
        }
    }

    /** An OBJECT_ARRAY message: the component class name, a count and the given element bytes. */
    private static byte[] array(String component, int count, byte... elements) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(Tags.OBJECT_ARRAY);
        w.writeString(component);
        w.writeInt(count);
        for (byte b : elements) {
            w.writeByte(b);
        }
        return Arrays.copyOf(buffer.byteArray(), w.position());
    }

    private static String refusal(byte[] message) {
        return assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(message)).getMessage();
    }

    @Test
    void hostileArrayBytesAreMalformedDataAndInitialiseNothing() {
        // a count the bytes cannot hold is refused before anything is allocated
        assertTrue(refusal(array("java.lang.String", Integer.MAX_VALUE, Tags.NULL)).contains("does not fit"));
        assertTrue(refusal(array("java.lang.String", -1)).contains("does not fit"));
        assertTrue(refusal(array("java.lang.String", 3, Tags.NULL, Tags.NULL)).contains("does not fit"));
        // a component class that does not exist, or that the registry could not have written
        assertTrue(refusal(array("com.example.Missing", 0)).contains("class not found: com.example.Missing"));
        assertTrue(refusal(array("int", 0)).contains("class not found"));
        final String tripwire = refusal(array(Tripwire.class.getName(), 1, Tags.NULL));
        assertTrue(tripwire.contains("an array of " + Tripwire.class.getTypeName() + " cannot cross"), tripwire);
        assertTrue(refusal(array("[L" + Tripwire.class.getName() + ";", 0)).contains(Tripwire.class.getTypeName()));
        assertTrue(refusal(array("java.lang.Thread", 0)).contains("java.lang.Thread"));
        assertFalse(tripped, "naming a class in an array initialises nothing");
        // an element of another class than the component
        final byte[] intInStrings = array("java.lang.String", 1, Tags.INT, (byte) 1, (byte) 0, (byte) 0, (byte) 0);
        assertEquals("element 0 of a java.lang.String[] is a java.lang.Integer", refusal(intInStrings));
        // an array of 256 dimensions does not exist
        assertTrue(refusal(array("[".repeat(255) + "D", 0)).contains("cannot make an array"));
        // every truncation of a good message
        final byte[] good = Reducers.defaults().toBytes(new Object[] {new String[] {"a"}, new double[][] {{1}}, Colour.RED,
            new Point(1, 2)});
        for (int n = 0; n < good.length; n++) {
            final byte[] cut = Arrays.copyOf(good, n);
            assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(cut), "first " + n + " bytes");
        }
        // random damage
        final Random random = new Random(11);
        for (int i = 0; i < 3000; i++) {
            final byte[] bad = good.clone();
            bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            try {
                Reducers.defaults().fromBytes(bad);
            } catch (MalformedDataException expected) {
                // the only acceptable failure
            }
        }
    }

    /**
     * A count the bytes could hold, followed by elements that are not there (an unknown tag): the decoder must
     * fail having allocated about what it read, not an array of the claimed million elements (4-8 MB) up front.
     */
    @Test
    void aHostileCountAllocatesNothingAheadOfTheElementsReallyRead() {
        final int claimed = 1_000_000;
        final byte[] head = array("java.lang.String", claimed);
        final byte[] message = Arrays.copyOf(head, head.length + claimed);
        Arrays.fill(message, head.length, message.length, (byte) 127); // no such tag
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        final long thread = Thread.currentThread().getId();
        for (int warm = 0; warm < 3; warm++) { // the first calls load and link classes, which allocates too
            assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(message));
        }
        final long before = threads.getThreadAllocatedBytes(thread);
        final String e = refusal(message);
        final long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertTrue(e.contains("unknown tag 127"), e);
        assertTrue(allocated < 1_000_000, allocated + " bytes allocated to refuse a claimed " + claimed + "-element array");
    }

    @Test
    void aLongArrayIsReadInFullPastThePresizeLimit() {
        final String[] many = new String[Reducers.PRESIZE_LIMIT * 3 + 5];
        for (int i = 0; i < many.length; i++) {
            many[i] = Integer.toString(i);
        }
        final String[] back = assertInstanceOf(String[].class, roundTrip(Reducers.defaults(), many));
        assertArrayEquals(many, back);
    }
}
