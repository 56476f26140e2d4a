package dev.sharray.reducers;

import dev.sharray.DType;
import dev.sharray.Descriptor;
import dev.sharray.SharedArray;
import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReducersTest {
    enum Mode { FAST, SLOW { @Override public String toString() { return "slow"; } } }

    record Item(String name, int count, double weight, Mode mode, List<Long> ids, Map<String, Integer> attrs) { }

    /** A sparse-matrix-like user type (not a record): three arrays and a shape. */
    static final class Csr {
        final SharedArray data;
        final SharedArray indices;
        final SharedArray indptr;
        final long rows;

        Csr(SharedArray data, SharedArray indices, SharedArray indptr, long rows) {
            this.data = data;
            this.indices = indices;
            this.indptr = indptr;
            this.rows = rows;
        }
    }

    public static final class CsrReducer implements Reducer<Csr> {
        @Override
        public Class<Csr> type() {
            return Csr.class;
        }

        @Override
        public void write(Csr m, ValueWriter out) {
            out.writeLong(m.rows);
            out.writeValue(m.data);
            out.writeValue(m.indices);
            out.writeValue(m.indptr);
        }

        @Override
        public Csr read(ValueReader in) {
            final long rows = in.readLong();
            return new Csr(in.readValue(SharedArray.class), in.readValue(SharedArray.class), in.readValue(SharedArray.class), rows);
        }
    }

    @Test
    void defaultsRoundTrip() {
        final Reducers r = Reducers.defaults();
        final Map<String, Integer> attrs = new LinkedHashMap<>();
        attrs.put("a", 1);
        attrs.put("é", null);
        final Item item = new Item("x", 3, 2.5, Mode.SLOW, List.of(1L, 2L), attrs);
        final Object[] values = {null, true, false, (byte) 7, (short) -3, 'q', 42, -1L, 1.5f, Math.PI, "", "ünïcode ✓",
            Mode.FAST, Mode.SLOW, item, new ArrayList<>(List.of(1, "two", 3.0)), new LinkedHashSet<>(Set.of(9)), attrs};
        for (Object v : values) {
            assertEquals(v, r.fromBytes(r.toBytes(v)), String.valueOf(v));
        }
        final Object[] arrays = {new boolean[] {true, false}, new byte[] {1, -2}, new short[] {3}, new char[] {'a', 'b'},
            new int[] {1, 2, 3}, new long[] {Long.MIN_VALUE}, new float[] {1.25f}, new double[] {1e300, -0.0}, new double[0]};
        for (Object a : arrays) {
            final Object back = r.fromBytes(r.toBytes(a));
            assertEquals(a.getClass(), back.getClass());
            assertTrue(Arrays.deepEquals(new Object[] {a}, new Object[] {back}));
        }
    }

    /** A user type whose reducer's read takes {@code readInts} of the {@code wroteInts} ints its write wrote. */
    record Lopsided(int value) { }

    static Reducer<Lopsided> lopsided(int wroteInts, int readInts) {
        return new Reducer<>() {
            @Override
            public Class<Lopsided> type() {
                return Lopsided.class;
            }

            @Override
            public void write(Lopsided v, ValueWriter out) {
                for (int i = 0; i < wroteInts; i++) {
                    out.writeInt(v.value());
                }
            }

            @Override
            public Lopsided read(ValueReader in) {
                int v = 0;
                for (int i = 0; i < readInts; i++) {
                    v = in.readInt();
                }
                return new Lopsided(v);
            }
        };
    }

    @Test
    void aUserReducerThatReadsOtherThanItWroteFailsAtItsOwnValue() {
        final List<Object> values = List.of(new Lopsided(7), 5, "tail");
        assertEquals(values, Reducers.defaults().with(lopsided(2, 2)).fromBytes(Reducers.defaults().with(lopsided(2, 2))
            .toBytes(values)));
        // before: [Lopsided[7], 21575499776, tail] (reading less), or the next values read as this one's (more)
        for (int[] wroteRead : new int[][] {{2, 1}, {1, 2}, {1, 0}}) {
            final Reducers r = Reducers.defaults().with(lopsided(wroteRead[0], wroteRead[1]));
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> r.fromBytes(r.toBytes(values)),
                Arrays.toString(wroteRead));
            assertTrue(e.getMessage().contains("reducer '" + lopsided(0, 0).id() + "'"), e.getMessage());
        }
    }

    /** A small class hierarchy for reducer precedence; each reducer tags what it read with its own name. */
    static class Animal {
        final String by;

        Animal(String by) {
            this.by = by;
        }
    }

    static class Dog extends Animal {
        Dog(String by) {
            super(by);
        }
    }

    static final class Puppy extends Dog {
        Puppy(String by) {
            super(by);
        }
    }

    static <T> Reducer<T> tagging(Class<T> type, java.util.function.Function<String, T> make) {
        return new Reducer<>() {
            @Override
            public Class<T> type() {
                return type;
            }

            @Override
            public void write(T value, ValueWriter out) {
            }

            @Override
            public T read(ValueReader in) {
                return make.apply(type.getSimpleName());
            }
        };
    }

    @Test
    void aSubclassIsWrittenByTheReducerOfItsMostSpecificRegisteredSupertypeWhateverTheOrder() {
        final Reducer<Animal> animal = tagging(Animal.class, Animal::new);
        final Reducer<Dog> dog = tagging(Dog.class, Dog::new);
        // before: the reducer registered last that applied at all won, so with Animal's registered after Dog's,
        // a Puppy crossed as an Animal (Reducer.type() promises the more specific one)
        for (Reducers r : List.of(Reducers.defaults().with(dog).with(animal), Reducers.defaults().with(animal, dog),
            Reducers.defaults().with(dog, animal))) {
            final Object back = r.fromBytes(r.toBytes(new Puppy("sender")));
            assertEquals(Dog.class, back.getClass());
            assertEquals("Dog", ((Animal) back).by);
            assertEquals("Animal", ((Animal) r.fromBytes(r.toBytes(new Animal("sender")))).by);
        }
    }

    /** A user type whose reducer fails as {@code how} says: "write", "read" or "wrong type" (read returns a String). */
    static final class Fragile {
    }

    /** Raw, as erasure makes every reducer at run time: its read can return what it likes. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static Reducer<Fragile> fragile(String how) {
        return new Reducer() {
            @Override
            public Class type() {
                return Fragile.class;
            }

            @Override
            public void write(Object v, ValueWriter out) {
                if (how.equals("write")) {
                    throw new IllegalStateException("no write today");
                }
                out.writeInt(1);
            }

            @Override
            public Object read(ValueReader in) {
                in.readInt();
                if (how.equals("read")) {
                    throw new IllegalStateException("no read today");
                }
                return "not a Fragile";
            }
        };
    }

    @Test
    void aUserReducerThatThrowsOrReadsAnotherTypeFailsNamingItself() {
        final String id = Fragile.class.getName();
        // before: the bare IllegalStateException, naming neither the reducer nor the value
        final Reducers onWrite = Reducers.defaults().with(fragile("write"));
        final ReducerException w = assertThrows(ReducerException.class, () -> onWrite.toBytes(List.of(1, new Fragile())));
        assertTrue(w.getMessage().contains("reducer '" + id + "'") && w.getMessage().contains("no write today"),
            w.getMessage());
        assertTrue(w.getCause() instanceof IllegalStateException);
        // before: the bare IllegalStateException escaped the decoder, whose contract is MalformedDataException
        final Reducers onRead = Reducers.defaults().with(fragile("read"));
        final byte[] bytes = onRead.toBytes(List.of(new Fragile()));
        final MalformedDataException r = assertThrows(MalformedDataException.class, () -> onRead.fromBytes(bytes));
        assertTrue(r.getMessage().contains("reducer '" + id + "'") && r.getMessage().contains("no read today"),
            r.getMessage());
        // before: the String was returned as the Fragile, to fail later as a ClassCastException in the user's code
        final Reducers wrongType = Reducers.defaults().with(fragile("wrong type"));
        final MalformedDataException t = assertThrows(MalformedDataException.class,
            () -> wrongType.fromBytes(wrongType.toBytes(new Fragile())));
        assertTrue(t.getMessage().contains("reducer '" + id + "' read a java.lang.String, not a " + id), t.getMessage());
    }

    @Test
    void ofReducersOfOneTypeOrIdTheLastWinsWithinOneCallToo() {
        final Reducer<Animal> animal = tagging(Animal.class, Animal::new);
        final Reducer<Dog> dogAsAnimal = new Reducer<>() { // claims Animal's id for another type
            @Override
            public Class<Dog> type() {
                return Dog.class;
            }

            @Override
            public String id() {
                return animal.id();
            }

            @Override
            public void write(Dog value, ValueWriter out) {
            }

            @Override
            public Dog read(ValueReader in) {
                return new Dog("Dog");
            }
        };
        // before: both were kept, and an Animal, written under the shared id, was read back by the Dog reducer
        final Reducers oneCall = Reducers.defaults().with(animal, dogAsAnimal);
        assertEquals(List.of(dogAsAnimal), oneCall.registered());
        assertEquals(oneCall.registered(), Reducers.defaults().with(animal).with(dogAsAnimal).registered());
        assertThrows(ReducerException.class, () -> oneCall.toBytes(new Animal("sender")), "Animal has no reducer now");
        // the same reducer twice is registered once
        assertEquals(List.of(animal), Reducers.defaults().with(animal, animal).registered());
    }

    record Sorted(java.util.TreeMap<String, Integer> map) { }

    record Queue(java.util.LinkedList<Integer> list) { }

    record Ordered(java.util.SortedSet<Integer> set) { }

    record Loose(java.util.HashMap<String, Integer> map, java.util.HashSet<Integer> set, ArrayList<Integer> list,
                 java.util.Collection<Integer> any, Iterable<Integer> iterable) { }

    /** Crosses a TreeMap (natural order) as a TreeMap. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static final class TreeMapReducer implements Reducer<java.util.TreeMap> {
        @Override
        public Class<java.util.TreeMap> type() {
            return java.util.TreeMap.class;
        }

        @Override
        public void write(java.util.TreeMap value, ValueWriter out) {
            out.writeValue(new LinkedHashMap<>(value));
        }

        @Override
        public java.util.TreeMap read(ValueReader in) {
            return new java.util.TreeMap<>(in.readValue(Map.class));
        }
    }

    @Test
    void aRecordComponentDeclaredAsACollectionClassTheRebuildIsNotIsRefusedOnWrite() {
        final Reducers r = Reducers.defaults();
        // before: written without complaint, then refused by the receiver ("component 0 of record ...Sorted is
        // java.util.LinkedHashMap, expected java.util.TreeMap"): in a pool, only after the task was sent
        final Object[][] refused = {
            {new Sorted(new java.util.TreeMap<>(Map.of("b", 2, "a", 1))), "map", "java.util.TreeMap", "Map"},
            {new Queue(new java.util.LinkedList<>(List.of(1, 2))), "list", "java.util.LinkedList", "List"},
            {new Ordered(new java.util.TreeSet<>(List.of(2, 1))), "set", "java.util.SortedSet", "Set"},
        };
        for (Object[] c : refused) {
            final ReducerException e = assertThrows(ReducerException.class, () -> r.toBytes(List.of(c[0])));
            assertTrue(e.getMessage().contains("component " + c[1] + " of record " + c[0].getClass().getName()
                + " is declared " + c[2]) && e.getMessage().contains("declare it as " + c[3]), e.getMessage());
        }
        // components the rebuilt classes fit cross as before
        final Loose loose = new Loose(new java.util.HashMap<>(Map.of("a", 1)), new java.util.HashSet<>(Set.of(1)),
            new ArrayList<>(List.of(1)), new java.util.ArrayDeque<>(List.of(1)).stream().toList(), List.of(2));
        assertEquals(loose, r.fromBytes(r.toBytes(loose)));
        // a nulled component is no collection; with a reducer for its class the component crosses as that class
        assertEquals(new Sorted(null), r.fromBytes(r.toBytes(new Sorted(null))));
        final Reducers withTreeMap = r.with(new TreeMapReducer());
        final Sorted sorted = new Sorted(new java.util.TreeMap<>(Map.of("b", 2, "a", 1)));
        assertEquals(sorted, withTreeMap.fromBytes(withTreeMap.toBytes(sorted)));
    }

    @Test
    void unknownTypesFailClearlyOnWrite() {
        final ReducerException e = assertThrows(ReducerException.class, () -> Reducers.defaults().toBytes(new Object()));
        assertTrue(e.getMessage().contains("java.lang.Object"), e.getMessage());
        final List<Object> cycle = new ArrayList<>();
        cycle.add(cycle);
        assertThrows(ReducerException.class, () -> Reducers.defaults().toBytes(cycle));
    }

    @Test
    void theDepthLimitStillHoldsAfterACaughtFailure() {
        final List<Object> cycle = new ArrayList<>();
        cycle.add(cycle);
        Object deep = 1;
        for (int i = 0; i < 200; i++) {
            deep = List.of(deep);
        }
        final Object tooDeep = deep;
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        for (int attempt = 0; attempt < 3; attempt++) {
            // a caller that catches the failure and goes on writing with the same writer
            assertThrows(ReducerException.class, () -> w.writeValue(List.of(1, cycle)));
        }
        // before: each caught failure lowered the depth count by 64 below zero, so 200 levels were now accepted
        // (and a cycle written now would end in a StackOverflowError)
        final ReducerException e = assertThrows(ReducerException.class, () -> w.writeValue(tooDeep));
        assertTrue(e.getMessage().contains("nested deeper than 64"), e.getMessage());
    }

    @Test
    void hostileBytesOnlyEverGiveMalformedData() {
        final Reducers r = Reducers.defaults();
        final byte[] good = r.toBytes(new Item("name", 1, 2, Mode.FAST, List.of(5L), Map.of("k", 1)));
        final Random random = new Random(7);
        for (int i = 0; i < 5000; i++) {
            final byte[] bad = i % 2 == 0 ? good.clone() : new byte[random.nextInt(40)];
            if (i % 2 == 0) {
                bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            } else {
                random.nextBytes(bad);
            }
            try {
                r.fromBytes(bad);
            } catch (MalformedDataException expected) {
                // the only acceptable failure
            }
        }
        // a huge claimed length is refused before allocating
        assertThrows(MalformedDataException.class, () -> r.fromBytes(new byte[] {23, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}));
        // a record class name pointing at a non-record is refused
        final byte[] notRecord = r.toBytes(new Item("n", 1, 1, Mode.FAST, List.of(), Map.of()));
        final String itemName = Item.class.getName();
        // (an existing class of the same name length, so only the record check can refuse it)
        final String nope = Nope.class.getName();
        assertEquals(itemName.length(), nope.length());
        final byte[] swapped = new String(notRecord, java.nio.charset.StandardCharsets.ISO_8859_1)
            .replace(itemName, nope)
            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        final MalformedDataException refused = assertThrows(MalformedDataException.class, () -> r.fromBytes(swapped));
        assertTrue(refused.getMessage().contains("is not a record"), refused.getMessage());
    }

    /** Strings cross unchanged whatever their characters, at the boundary between ASCII and the rest too. */
    @Test
    void stringsAroundTheAsciiBoundaryCrossUnchanged() {
        final Reducers r = Reducers.defaults();
        for (String s : new String[] {"\u007f", "\u0080", "a\u0080b", "\u00ff", "\u0100", "x\u007f\u0080y", "\uffff"}) {
            assertEquals(s, r.fromBytes(r.toBytes(s)), "U+" + Integer.toHexString(s.codePointAt(s.length() - 1)));
        }
    }

    /** The writer refuses exactly what the reader would: a value nested deeper than MAX_DEPTH levels. */
    @Test
    void valuesNestedToTheDepthLimitCrossAndOneLevelMoreIsRefusedOnWrite() {
        final Reducers r = Reducers.defaults();
        Object atLimit = 1;
        for (int i = 1; i < ValueWriter.MAX_DEPTH; i++) { // the integer is a level too
            atLimit = List.of(atLimit);
        }
        assertEquals(atLimit, r.fromBytes(r.toBytes(atLimit)));
        final Object deeper = List.of(atLimit);
        assertThrows(ReducerException.class, () -> r.toBytes(deeper));
    }

    /** A collection whose size() says more than its iterator gives would write a count its elements do not fill. */
    @Test
    void aCollectionWhoseSizeDisagreesWithItsElementsIsRefusedOnWrite() {
        final List<Integer> lying = new ArrayList<>(List.of(1, 2)) {
            @Override
            public int size() {
                return 3;
            }
        };
        final ReducerException e = assertThrows(ReducerException.class, () -> Reducers.defaults().toBytes(lying));
        assertTrue(e.getMessage().contains("changed size"), e.getMessage());
    }

    /** Hostile counts: a negative one asked of require, a record with fewer components than its class has. */
    @Test
    void negativeRequirementsAndRecordsWithTooFewComponentsAreMalformedData() {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueReader in = new ValueReader(Reducers.defaults()).wrap(buffer, 0, 8, null);
        assertThrows(MalformedDataException.class, () -> in.require(-1));
        assertThrows(MalformedDataException.class, () -> in.require(Integer.MIN_VALUE));

        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(Tags.RECORD);
        w.writeString(Point.class.getName());
        w.writeInt(1); // Point has two
        w.writeValue(5);
        final byte[] bytes = java.util.Arrays.copyOf(buffer.byteArray(), w.position());
        final MalformedDataException e = assertThrows(MalformedDataException.class,
            () -> Reducers.defaults().fromBytes(bytes));
        assertTrue(e.getMessage().contains("has 2 components, input has 1"), e.getMessage());
    }

    /** A grid point: its hash code is 31 x + y, as a record's is. */
    record Point(int x, int y) {
    }

    @Test
    void setsAndMapsWhoseKeysShareOneHashCodeAreRefusedAsHashFloodingAndSpreadOnesCross() {
        final Reducers r = Reducers.defaults();
        final int n = 20_000;
        for (byte tag : new byte[] {Tags.SET, Tags.MAP}) {
            // lists [i, -31 i] all hash to 31 (31 + i) - 31 i = 961, and lists are not Comparable: rebuilding
            // them took 4.7 s for 20,000, and four times that for each doubling
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(r).wrap(buffer, 0, null);
            w.writeByte(tag);
            w.writeInt(n);
            for (int i = 0; i < n; i++) {
                w.writeValue(List.of(i, -31 * i));
                if (tag == Tags.MAP) {
                    w.writeValue(i);
                }
            }
            final byte[] hostile = Arrays.copyOf(buffer.byteArray(), w.position());
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> r.fromBytes(hostile));
            assertTrue(e.getMessage().contains("share the hash code 961: refused as hash flooding"), e.getMessage());
        }
        // a 300 x 300 grid of records (at most 10 per hash code) takes the same checked path and crosses whole
        final Set<Point> grid = new LinkedHashSet<>();
        final Map<Point, Integer> index = new LinkedHashMap<>();
        for (int x = 0; x < 300; x++) {
            for (int y = 0; y < 300; y++) {
                grid.add(new Point(x, y));
                index.put(new Point(x, y), index.size());
            }
        }
        assertEquals(List.copyOf(grid), List.copyOf((Set<?>) r.fromBytes(r.toBytes(grid))), "the same, in order");
        assertEquals(List.copyOf(index.entrySet()),
            List.copyOf(((Map<?, ?>) r.fromBytes(r.toBytes(index))).entrySet()), "the same, in order");
    }

    @Test
    void keysThatShareHashCodesInLegitimateDataCross() {
        final Reducers r = Reducers.defaults();
        // longs packing (x, x) all hash to 0, and a 512 x 512 grid of packed (x, y) to 512 per code: a HashMap
        // orders such keys in a tree by compareTo, in log time
        final Set<Long> diagonal = new LinkedHashSet<>();
        for (long x = 0; x < 300; x++) {
            diagonal.add(x << 32 | x);
        }
        final Set<Long> grid = new LinkedHashSet<>();
        for (long x = 0; x < 512; x++) {
            for (long y = 0; y < 512; y++) {
                grid.add(x << 32 | y);
            }
        }
        // strings of "Aa" and "BB" blocks share one hash code
        final Map<String, Integer> names = new LinkedHashMap<>();
        for (int bits = 0; bits < 512; bits++) {
            final StringBuilder name = new StringBuilder();
            for (int b = 0; b < 9; b++) {
                name.append((bits >> b & 1) == 0 ? "Aa" : "BB");
            }
            names.put(name.toString(), bits);
        }
        // heap arrays of one shape with different values (their hash code was of the dtype and shape alone)
        final Set<dev.sharray.HeapArray> matrices = new LinkedHashSet<>();
        for (int i = 0; i < 300; i++) {
            matrices.add(dev.sharray.HeapArray.of(new double[] {i, 0, 0, 1}, 2, 2));
        }
        assertEquals(300, matrices.size());
        // before: each was refused as hash flooding on read, after it was written without complaint
        for (Object value : List.of(diagonal, grid, names.keySet(), matrices)) {
            assertEquals(List.copyOf((Set<?>) value), List.copyOf((Set<?>) r.fromBytes(r.toBytes(value))), "the same, in order");
        }
        assertEquals(List.copyOf(names.entrySet()), List.copyOf(((Map<?, ?>) r.fromBytes(r.toBytes(names))).entrySet()));
    }

    @Test
    void sharedHashCodesAmongKeysOfMixedClassesOrNullsAreStillRefused() {
        final Reducers r = Reducers.defaults();
        // a tree cannot order keys of two classes, or nulls, by compareTo: a lookup may scan the whole bin
        final List<Object> mixed = new ArrayList<>();
        for (long x = 0; x < 300; x++) {
            mixed.add(x << 32 | x); // hash code 0
        }
        mixed.add(0); // an Integer of hash code 0
        final List<Object> nulls = new ArrayList<>(mixed.subList(0, 300));
        nulls.add(null);
        nulls.add(null);
        for (List<Object> keys : List.of(mixed, nulls)) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(r).wrap(buffer, 0, null);
            w.writeByte(Tags.SET);
            w.writeInt(keys.size());
            for (Object k : keys) {
                w.writeValue(k);
            }
            final byte[] bytes = Arrays.copyOf(buffer.byteArray(), w.position());
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> r.fromBytes(bytes));
            assertTrue(e.getMessage().contains("share the hash code 0: refused as hash flooding"), e.getMessage());
        }
        // one null among them is one search of the bin: allowed
        final Set<Object> oneNull = new LinkedHashSet<>(mixed.subList(0, 300));
        oneNull.add(null);
        assertEquals(new ArrayList<>(oneNull), new ArrayList<>((Set<?>) r.fromBytes(r.toBytes(oneNull))));
    }

    @Test
    void aDescriptorThatParsesButNamesAViewPastItsFileIsMalformedData() {
        final Reducers r = Reducers.defaults();
        try (SharedArray a = SharedArray.create(DType.FLOAT64, 4);
             SharingSession session = new SharingSession(1 << 20, null)) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(r).wrap(buffer, 0, session);
            w.writeValue(a);
            final byte[] message = Arrays.copyOf(buffer.byteArray(), w.position());
            // the same descriptor with 1000 elements, its checksum made good: it parses, but the file has 4
            final byte[] descriptor = a.descriptor().toBytes();
            final int at = indexOf(message, descriptor);
            final java.nio.ByteBuffer d = java.nio.ByteBuffer.wrap(message, at, descriptor.length).slice()
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            d.putLong(16, 1000); // shape[0], after the 16-byte fixed header
            final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(message, at, descriptor.length - 4);
            d.putInt(descriptor.length - 4, (int) crc.getValue());
            try (OpenedArrays opened = new OpenedArrays()) {
                final ValueReader in = new ValueReader(r).wrap(new org.agrona.concurrent.UnsafeBuffer(message), 0,
                    message.length, opened);
                // before: dev.sharray.InvalidDescriptorException escaped the decoder
                final MalformedDataException e = assertThrows(MalformedDataException.class, in::readValue);
                assertTrue(e.getMessage().startsWith("invalid descriptor: "), e.getMessage());
                assertEquals(0, opened.size(), "nothing left open");
            }
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }

    /** A part of {@link HoldsAMissingPart} that {@link WithoutClass} cannot load, as an absent optional dependency. */
    record MissingPart(int value) {
    }

    record HoldsAMissingPart(MissingPart part, int count) {
    }

    /** Defines its own copy of one class from the test classpath, and cannot load another. */
    private static final class WithoutClass extends ClassLoader {
        private final String own;
        private final String missing;

        WithoutClass(Class<?> own, Class<?> missing) {
            super(WithoutClass.class.getClassLoader());
            this.own = own.getName();
            this.missing = missing.getName();
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(missing)) {
                throw new ClassNotFoundException(name);
            }
            if (!name.equals(own)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                final Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (java.io.InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    final byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (java.io.IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }

    @Test
    void aRecordOneOfWhoseComponentClassesIsMissingIsMalformedDataNotAnError() {
        final Reducers r = Reducers.defaults();
        final byte[] bytes = r.toBytes(new HoldsAMissingPart(new MissingPart(1), 2));
        final Thread self = Thread.currentThread();
        final ClassLoader before = self.getContextClassLoader();
        self.setContextClassLoader(new WithoutClass(HoldsAMissingPart.class, MissingPart.class));
        try {
            // before: NoClassDefFoundError from Class.getRecordComponents escaped the decoder
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> r.fromBytes(bytes));
            assertTrue(e.getMessage().contains(HoldsAMissingPart.class.getName()) && e.getMessage().contains("MissingPart"),
                e.getMessage());
        } finally {
            self.setContextClassLoader(before);
        }
    }

    @Test
    void sparseMatrixCrossesAsThreeDescriptors() {
        final Reducers r = Reducers.defaults().with(new CsrReducer());
        try (SharedArray data = SharedArray.copyOf(new double[] {1, 2, 3});
             SharedArray indices = SharedArray.copyOf(new int[] {0, 2, 1});
             SharedArray indptr = SharedArray.copyOf(new int[] {0, 2, 3});
             SharingSession session = new SharingSession(1 << 20, null);
             OpenedArrays opened = new OpenedArrays()) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(r).wrap(buffer, 0, session);
            final Csr m = new Csr(data, indices, indptr, 2);
            w.writeValue(m);
            w.writeValue(m); // the same arrays again: not pinned twice
            assertEquals(3, session.size());
            final ValueReader in = new ValueReader(r).wrap(buffer, 0, w.position(), opened);
            final Csr back = in.readValue(Csr.class);
            in.readValue(Csr.class);
            assertEquals(6, opened.size());
            assertEquals(2, back.rows);
            assertNotSame(data, back.data);
            assertEquals(data.path(), back.data.path());
            assertArrayEquals(new double[] {1, 2, 3}, back.data.toDoubleArray());
            assertArrayEquals(new int[] {0, 2, 1}, back.indices.toIntArray());
            assertArrayEquals(new int[] {0, 2, 3}, back.indptr.toIntArray());
        }
    }

    @Test
    void largeHeapArraysAreCopiedOncePerSession() {
        final double[] big = new double[1000];
        Arrays.fill(big, 2.0);
        try (SharingSession session = new SharingSession(1024, null); OpenedArrays opened = new OpenedArrays()) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, session);
            w.writeValue(List.of(big, big, new double[] {1}));
            assertEquals(1, session.size());
            assertTrue(w.position() < 1000, "descriptors, not data: " + w.position() + " bytes");
            final ValueReader in = new ValueReader(Reducers.defaults()).wrap(buffer, 0, w.position(), opened);
            final List<?> back = in.readValue(List.class);
            assertArrayEquals(big, (double[]) back.get(0));
            assertArrayEquals(big, (double[]) back.get(1));
            assertArrayEquals(new double[] {1}, (double[]) back.get(2));
        }
    }

    /** maxBytes is the largest array still written inline: one of exactly that size is not copied to shared memory. */
    @Test
    void arraysOfExactlyMaxBytesAreWrittenInlineAndLargerOnesAreShared() {
        final double[] atLimit = {1, 2, 3, 4, 5, 6, 7, 8}; // 64 bytes
        final dev.sharray.HeapArray heapAtLimit = dev.sharray.HeapArray.of(new long[] {1, 2, 3, 4, 5, 6, 7, 8}, 2, 4);
        final long[] above = {1, 2, 3, 4, 5, 6, 7, 8, 9}; // 72 bytes
        final dev.sharray.HeapArray heapAbove = dev.sharray.HeapArray.of(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
            13, 14, 15, 16, 17}, 17);
        try (SharingSession session = new SharingSession(64, null); OpenedArrays opened = new OpenedArrays()) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, session);
            w.writeValue(atLimit);
            w.writeValue(heapAtLimit);
            assertEquals(0, session.size(), "arrays of maxBytes are written inline");
            w.writeValue(above);
            w.writeValue(heapAbove);
            assertEquals(2, session.size(), "arrays above maxBytes are shared");
            final ValueReader in = new ValueReader(Reducers.defaults()).wrap(buffer, 0, w.position(), opened);
            assertArrayEquals(atLimit, (double[]) in.readValue());
            final dev.sharray.HeapArray heap = (dev.sharray.HeapArray) in.readValue();
            assertArrayEquals(new long[] {2, 4}, heap.shape());
            assertArrayEquals((long[]) heapAtLimit.data(), (long[]) heap.data());
            assertArrayEquals(above, (long[]) in.readValue());
            assertArrayEquals((int[]) heapAbove.data(), (int[]) ((dev.sharray.HeapArray) in.readValue()).data());
            assertEquals(0, in.remaining());
        }
    }

    @Test
    void sharedCopiesCanBeReadAsTheSharedArrayItself() {
        final double[] big = new double[1000];
        Arrays.fill(big, 2.0);
        final dev.sharray.HeapArray heap = dev.sharray.HeapArray.of(new int[600], 20, 30);
        try (SharingSession session = new SharingSession(1024, null); OpenedArrays opened = new OpenedArrays()) {
            final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
            final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, session);
            w.writeValue(big);
            w.writeValue(heap);
            w.writeValue(List.of(big));
            w.writeValue(7);
            final ValueReader in = new ValueReader(Reducers.defaults()).wrap(buffer, 0, w.position(), opened);
            final SharedArray a = (SharedArray) in.readValueKeepingShared();
            assertTrue(opened.contains(a), "released with the message");
            assertEquals(DType.FLOAT64, a.dtype());
            assertArrayEquals(big, a.toDoubleArray());
            final SharedArray h = (SharedArray) in.readValueKeepingShared();
            assertEquals(DType.INT32, h.dtype());
            assertArrayEquals(new long[] {20, 30}, h.shape());
            // nested arrays and other values are rebuilt as usual
            assertArrayEquals(big, (double[]) ((List<?>) in.readValueKeepingShared()).get(0));
            assertEquals(7, in.readValueKeepingShared());
            assertEquals(0, in.remaining());
        }
    }

    @Test
    void sharedArraysNeedASharingPolicy() {
        try (SharedArray a = SharedArray.create(DType.INT8, 4)) {
            assertThrows(ReducerException.class, () -> Reducers.defaults().toBytes(a));
            final Descriptor d = a.descriptor();
            final byte[] db = d.toBytes();
            final byte[] msg = new byte[5 + db.length];
            msg[0] = 25;
            msg[1] = (byte) db.length;
            System.arraycopy(db, 0, msg, 5, db.length);
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(msg));
            assertTrue(e.getMessage().contains("none may be opened"), e.getMessage());
        }
    }

    /**
     * A descriptor with arbitrary (possibly hostile) fields and a valid checksum: the binary form documented
     * in {@link Descriptor}, built by hand because a zero stride cannot be made through the API.
     */
    private static byte[] descriptorBytes(Descriptor base, long[] shape, long[] strides) {
        final byte[] path = base.path().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16 + 16 * shape.length + 2 + path.length + 4)
            .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x59415253).put((byte) 1).put((byte) base.dtype().ordinal()).put((byte) 0).put((byte) shape.length)
            .putLong(base.offset());
        for (long v : shape) {
            b.putLong(v);
        }
        for (long v : strides) {
            b.putLong(v);
        }
        b.putShort((short) path.length).put(path);
        final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        return b.array();
    }

    /** {@code tag}, then for a primitive copy its element tag, then the descriptor as a length-prefixed body. */
    private static byte[] sharedCopyMessage(byte tag, byte elementTag, byte[] descriptor) {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(tag);
        if (tag == Tags.SHARED_PRIMITIVE_ARRAY) {
            w.writeByte(elementTag);
        }
        w.writeByteArrayBody(descriptor);
        return Arrays.copyOf(buffer.byteArray(), w.position());
    }

    @Test
    void aSharedCopyThatIsNotDenseIsRefusedBeforeAllocatingItsClaimedSize() {
        // A sender's shared copy is always a dense array. A descriptor with stride 0 over one real element
        // claims ~2^31 elements (16 GiB) that no file backs: copying it to the heap was an OutOfMemoryError.
        try (SharedArray one = SharedArray.create(DType.FLOAT64, 1)) {
            final byte[] hostile = descriptorBytes(one.descriptor(), new long[] {Integer.MAX_VALUE - 9}, new long[] {0});
            for (byte[] msg : new byte[][] {
                sharedCopyMessage(Tags.SHARED_PRIMITIVE_ARRAY, Tags.DOUBLE_ARRAY, hostile),
                sharedCopyMessage(Tags.SHARED_HEAP_ARRAY, (byte) 0, hostile)}) {
                for (boolean keepShared : new boolean[] {false, true}) {
                    try (OpenedArrays opened = new OpenedArrays()) {
                        final ValueReader in = new ValueReader(Reducers.defaults())
                            .wrap(new org.agrona.concurrent.UnsafeBuffer(msg), 0, msg.length, opened);
                        final MalformedDataException e = assertThrows(MalformedDataException.class,
                            () -> {
                                if (keepShared) {
                                    in.readValueKeepingShared();
                                } else {
                                    in.readValue();
                                }
                            });
                        assertTrue(e.getMessage().contains("not dense"), e.getMessage());
                    }
                    assertEquals(1, dev.sharray.SharedArrays.localReferences(one), "no reference leaked");
                }
            }
            // the genuine dense copy of the same file still reads
            final byte[] dense = descriptorBytes(one.descriptor(), new long[] {1}, new long[] {8});
            final byte[] msg = sharedCopyMessage(Tags.SHARED_PRIMITIVE_ARRAY, Tags.DOUBLE_ARRAY, dense);
            try (OpenedArrays opened = new OpenedArrays()) {
                final ValueReader in = new ValueReader(Reducers.defaults())
                    .wrap(new org.agrona.concurrent.UnsafeBuffer(msg), 0, msg.length, opened);
                assertArrayEquals(new double[] {0}, (double[]) in.readValue());
            }
        }
    }

    /** An enum whose static initialiser fails, as any class on the classpath named by hostile bytes may. */
    enum FailsToInitialise {
        ONE;
        static final int BROKEN = Integer.parseInt("not a number");
    }

    /** The same for a record. */
    record RecordFailsToInitialise(int x) {
        static final int BROKEN = Integer.parseInt("not a number");
    }

    @Test
    void anEnumOrRecordWhoseInitialiserFailsIsMalformedDataNotAnError() {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(Tags.ENUM);
        w.writeString(FailsToInitialise.class.getName());
        w.writeString("ONE");
        final byte[] anEnum = Arrays.copyOf(buffer.byteArray(), w.position());
        w.wrap(buffer, 0, null);
        w.writeByte(Tags.RECORD);
        w.writeString(RecordFailsToInitialise.class.getName());
        w.writeInt(1);
        w.writeValue(7);
        final byte[] aRecord = Arrays.copyOf(buffer.byteArray(), w.position());
        // before: ExceptionInInitializerError escaped the decoder (and NoClassDefFoundError on a second read)
        for (byte[] msg : List.of(anEnum, anEnum, aRecord, aRecord)) {
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(msg));
            assertTrue(e.getMessage().contains("FailsToInitialise") && e.getMessage().contains("initialised"), e.getMessage());
        }
    }

    @Test
    void aRecordWhosePackageIsNotOpenIsMalformedDataNotAnInaccessibleObjectException() {
        // records of java.base in packages not open to us (one of them exists on each JDK we run on)
        String closed = null;
        for (String name : new String[] {"sun.security.pkcs.SignerInfo$AlgorithmInfo", "sun.nio.ch.IOUtil$Releaser",
            "jdk.internal.misc.ThreadTracker$ThreadRef"}) {
            try {
                if (Class.forName(name, false, null).isRecord()) {
                    closed = name;
                    break;
                }
            } catch (ClassNotFoundException e) {
                // not on this JDK
            }
        }
        assertTrue(closed != null, "no closed record found in java.base");
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(Tags.RECORD);
        w.writeString(closed);
        w.writeInt(1);
        w.writeByte(Tags.NULL);
        final byte[] msg = Arrays.copyOf(buffer.byteArray(), w.position());
        // before: java.lang.reflect.InaccessibleObjectException from setAccessible escaped the decoder
        final MalformedDataException e = assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(msg));
        assertTrue(e.getMessage().contains(closed) && e.getMessage().contains("not open"), e.getMessage());
    }

    @Test
    void aZeroDimensionalHeapArrayKeepsItsShapeInlineAndShared() {
        // before: read back as shape (1,), because HeapArray.of(data) with no shape means 1-D
        for (DType dtype : DType.values()) {
            final dev.sharray.HeapArray scalar = dev.sharray.HeapArray.zeros(dtype);
            scalar.setByte((byte) 7);
            final Object inline = Reducers.defaults().fromBytes(Reducers.defaults().toBytes(scalar));
            assertEquals(scalar, inline, dtype + " inline");
            assertArrayEquals(new long[0], ((dev.sharray.HeapArray) inline).shape());
            try (SharingSession session = new SharingSession(0, null); OpenedArrays opened = new OpenedArrays()) {
                final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
                final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, session);
                w.writeValue(scalar);
                assertEquals(1, session.size(), "written as a shared copy");
                final Object shared = new ValueReader(Reducers.defaults()).wrap(buffer, 0, w.position(), opened).readValue();
                assertEquals(scalar, shared, dtype + " shared");
            }
        }
    }

    @Test
    void anInlineHeapArrayWhoseEmptyShapeOverflowsIsMalformedData() {
        // shape (0, 2^60) of float64: no element, so the element count passes, but its other dimension spans
        // 2^63 bytes, which HeapArray refuses (found by mutating encodings of ordinary values)
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(64);
        final ValueWriter w = new ValueWriter(Reducers.defaults()).wrap(buffer, 0, null);
        w.writeByte(Tags.HEAP_ARRAY);
        w.writeByte((byte) DType.FLOAT64.ordinal());
        w.writeInt(2);
        w.writeLong(0);
        w.writeLong(1L << 60);
        w.writeInt(0); // no data
        final byte[] msg = Arrays.copyOf(buffer.byteArray(), w.position());
        // before: dev.sharray.InvalidDescriptorException: shape: (0, 1152921504606846976) of FLOAT64 overflows 2^63 bytes
        final MalformedDataException e = assertThrows(MalformedDataException.class, () -> Reducers.defaults().fromBytes(msg));
        assertTrue(e.getMessage().contains("overflows 2^63 bytes"), e.getMessage());
        // the largest valid empty shapes still cross
        for (long[] shape : new long[][] {{0, (1L << 60) - 1}, {(1L << 60) - 1, 0}, {0, 0, 3}}) {
            final dev.sharray.HeapArray empty = dev.sharray.HeapArray.zeros(DType.FLOAT64, shape);
            assertEquals(empty, Reducers.defaults().fromBytes(Reducers.defaults().toBytes(empty)));
        }
    }

    @Test
    void stringsCrossExactlyOrFailClearly() {
        final Reducers r = Reducers.defaults();
        // valid strings, a surrogate pair and a genuine U+FFFD included, round-trip unchanged
        for (String s : new String[] {"\uD83D\uDE00 ok", "\uFFFD", "caf\u00e9"}) {
            assertEquals(s, r.fromBytes(r.toBytes(s)));
        }
        // before: an unpaired surrogate was written as '?' (String.getBytes), silently changing the value
        for (String s : new String[] {"a\uD800b", "\uDC00", "\u00e9\uD800"}) {
            final ReducerException e = assertThrows(ReducerException.class, () -> r.toBytes(List.of(s)));
            assertTrue(e.getMessage().contains("unpaired surrogate"), e.getMessage());
        }
        // before: malformed UTF-8 on the wire decoded to U+FFFD instead of being refused
        for (byte[] bad : new byte[][] {{(byte) 0xC3, '('}, {(byte) 0x80}, {(byte) 0xC0, (byte) 0x80}, {'a', (byte) 0xE2, (byte) 0x82}}) {
            final byte[] msg = new byte[5 + bad.length];
            msg[0] = Tags.STRING;
            msg[1] = (byte) bad.length;
            System.arraycopy(bad, 0, msg, 5, bad.length);
            final MalformedDataException e = assertThrows(MalformedDataException.class, () -> r.fromBytes(msg));
            assertTrue(e.getMessage().contains("UTF-8"), e.getMessage());
        }
    }

    /** A class that is not a record, with a name as long as {@code Item}'s. */
    static final class Nope {
        private Nope() {
        }
    }

    /**
     * A collection whose count, written first, disagrees with what its iteration then gives (a concurrent one
     * changed meanwhile) went out garbled: the receiver failed on what followed ("truncated input"). The list
     * checked its size only after iterating, the map not at all.
     */
    @Test
    void aCollectionThatChangesSizeWhileBeingWrittenIsRefusedBySender() {
        final Reducers reducers = Reducers.defaults();
        final List<Integer> list = new java.util.AbstractList<>() {
            private int sizeCalls;

            @Override
            public Integer get(int index) {
                return index;
            }

            @Override
            public int size() {
                return sizeCalls++ == 0 ? 3 : 2; // shrank after its count was written
            }
        };
        final Map<String, Integer> map = new java.util.AbstractMap<>() {
            @Override
            public Set<Map.Entry<String, Integer>> entrySet() {
                return Map.of("a", 1, "b", 2).entrySet();
            }

            @Override
            public int size() {
                return 3;
            }
        };
        for (Object value : List.of(list, map)) {
            final ReducerException e = assertThrows(ReducerException.class, () -> reducers.toBytes(List.of(value, "tail")));
            assertTrue(e.getMessage().contains("changed size while being written"), e.getMessage());
        }
    }

    /**
     * Each array is checked against the 2 GiB an int-indexed buffer holds, but arrays written one after another
     * wrapped the position: the bulk copy then passed the buffer's limit check (a negative limit) and wrote past
     * the buffer's end (two 1.1 GB arrays overwrote another object's bytes on the heap). Here the buffer ends 1 MiB
     * before 2 GiB, in an allocation 1 MiB longer, whose last MiB must stay untouched.
     */
    @Test
    void aValueThatWouldTakeTheBufferPastTwoGibIsRefusedNotCopiedPastItsEnd() {
        final int capacity = Integer.MAX_VALUE - (1 << 20);
        final long slack = 2L << 20;
        final long address = org.agrona.UnsafeApi.allocateMemory(capacity + slack); // untouched pages cost no RAM
        try {
            org.agrona.UnsafeApi.setMemory(address + capacity - 4096, 4096 + slack, (byte) 0);
            final ValueWriter out = new ValueWriter(Reducers.defaults())
                .wrap(new org.agrona.concurrent.UnsafeBuffer(address, capacity), capacity - 16, null);
            final byte[] array = new byte[(1 << 20) + 64]; // fits the buffer's int range only if the position did not
            Arrays.fill(array, (byte) 'A');
            final ReducerException e = assertThrows(ReducerException.class, () -> out.writeValue(array));
            assertTrue(e.getMessage().startsWith("the value is too big to write inline"), e.getMessage());
            for (long at = capacity; at < capacity + slack; at++) {
                assertEquals(0, org.agrona.UnsafeApi.getByte(address + at), "written past the buffer's end at " + at);
            }
        } finally {
            org.agrona.UnsafeApi.freeMemory(address);
        }
    }

    /** A null argument is refused with the parameter's name, not from inside Agrona or a local ("<local2>"). */
    @Test
    void nullArgumentsAreRefusedByName() {
        assertEquals("reducers", assertThrows(NullPointerException.class,
            () -> Reducers.defaults().with((Reducer<?>[]) null)).getMessage());
        assertEquals("bytes", assertThrows(NullPointerException.class,
            () -> Reducers.defaults().fromBytes(null)).getMessage());
    }
}
