package dev.sharray.pool;

import dev.sharray.reducers.MalformedDataException;
import dev.sharray.reducers.Reducers;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.util.HashMap;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostileBytesTest {
    private static ProcessPool pool;

    @BeforeAll
    static void start() {
        pool = ProcessPool.create(1);
    }

    @AfterAll
    static void stop() {
        pool.close();
    }

    private static byte[] javaSerialize(Object o) throws Exception {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    private static RemoteFunction<?, ?> decode(byte[] b) {
        return FunctionCodec.decode(new UnsafeBuffer(b), 0, b.length, Reducers.defaults(), null);
    }

    @Test
    void serializedNonFunctionClassesAreRejectedByName() throws Exception {
        final HashMap<String, Object> gadget = new HashMap<>();
        gadget.put("k", new java.net.URL("http://localhost/"));
        final MalformedDataException e = assertThrows(MalformedDataException.class, () -> decode(javaSerialize(gadget)));
        assertTrue(e.getMessage().contains("java.util.HashMap"), e.getMessage());
    }

    @Test
    void corruptedFunctionBytesAreRejected() throws Exception {
        final byte[] good = FunctionCodec.encode((Integer x) -> x + 1, Reducers.defaults(), null).bytes;
        final Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            final byte[] bad = good.clone();
            final int flips = 1 + random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            }
            try {
                decode(bad);
            } catch (MalformedDataException expected) {
                // the only acceptable failure
            }
        }
        assertThrows(MalformedDataException.class, () -> decode(new byte[] {1, 2, 3}));
    }

    @Test
    void hostileTaskBytesFailTheTaskWithAClearRemoteException() throws Exception {
        final byte[] gadget = javaSerialize(new HashMap<>(java.util.Map.of("a", 1)));
        final ExecutionException e1 = assertThrows(ExecutionException.class,
            () -> pool.submitEncoded(new FunctionCodec.Encoded(0, gadget), Reducers.defaults().toBytes(1)).get(30, TimeUnit.SECONDS));
        final RemoteTaskException r1 = assertInstanceOf(RemoteTaskException.class, e1.getCause());
        assertEquals(MalformedDataException.class.getName(), r1.remoteClassName());
        assertTrue(r1.getMessage().contains("java.util.HashMap"), r1.getMessage());

        final byte[] fn = FunctionCodec.encode((Integer x) -> x, Reducers.defaults(), null).bytes;
        final ExecutionException e2 = assertThrows(ExecutionException.class,
            () -> pool.submitEncoded(new FunctionCodec.Encoded(0, fn), new byte[] {0x7f, 1, 2}).get(30, TimeUnit.SECONDS));
        final RemoteTaskException r2 = assertInstanceOf(RemoteTaskException.class, e2.getCause());
        assertTrue(r2.getMessage().contains("unknown tag 127"), r2.getMessage());

        final ExecutionException e3 = assertThrows(ExecutionException.class,
            () -> pool.submitEncoded(new FunctionCodec.Encoded(0, fn), new byte[] {13, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}).get(30, TimeUnit.SECONDS));
        assertTrue(e3.getCause().getMessage().contains("count"), e3.getCause().getMessage());
        // a map call's function goes through the same filter; the rejection is cached with it, so a later task
        // of that call (sent by id only) fails the same way
        final FunctionCodec.Encoded mapGadget = new FunctionCodec.Encoded(0, gadget).forMap(Integer.MAX_VALUE);
        for (int i = 0; i < 2; i++) {
            final ExecutionException e4 = assertThrows(ExecutionException.class,
                () -> pool.submitEncoded(mapGadget, Reducers.defaults().toBytes(1)).get(30, TimeUnit.SECONDS));
            final RemoteTaskException r4 = assertInstanceOf(RemoteTaskException.class, e4.getCause());
            assertEquals(MalformedDataException.class.getName(), r4.remoteClassName());
            assertTrue(r4.getMessage().contains("java.util.HashMap"), r4.getMessage());
        }
        // the worker survived all of it
        assertEquals(3, pool.submit((Integer x) -> x + 1, 2).get(30, TimeUnit.SECONDS));
    }

    @Test
    void hostileArraysAndDatesFailTheirTaskClearlyAndTheWorkerLivesOn() throws Exception {
        final byte[] fn = FunctionCodec.encode((Object x) -> String.valueOf(x), Reducers.defaults(), null).bytes;
        // tag 29 (an array of references) of a class no reducer writes; tag 39 (a LocalDate) of month 13; tag 35 (a
        // BigInteger) claiming 2 GB
        final byte[][] messages = {ValueBytes.of(29, "java.lang.Thread", 0),
            ValueBytes.of(39, 2026, (byte) 13, (byte) 1), ValueBytes.of(35, Integer.MAX_VALUE, (byte) 1)};
        final String[] expected = {"an array of java.lang.Thread cannot cross", "invalid LocalDate", "does not fit"};
        for (int i = 0; i < messages.length; i++) {
            final byte[] arg = messages[i];
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> pool.submitEncoded(new FunctionCodec.Encoded(0, fn), arg).get(30, TimeUnit.SECONDS));
            final RemoteTaskException r = assertInstanceOf(RemoteTaskException.class, e.getCause());
            assertEquals(MalformedDataException.class.getName(), r.remoteClassName(), r.getMessage());
            assertTrue(r.getMessage().contains(expected[i]), r.getMessage());
        }
        // the worker survived all of it, and takes such values when they are valid
        assertEquals("[a, b]", pool.submit((Object x) -> java.util.Arrays.toString((Object[]) x),
            (Object) new String[] {"a", "b"}).get(30, TimeUnit.SECONDS));
        assertEquals("2026-12-04", pool.submit((Object x) -> String.valueOf(x),
            (Object) java.time.LocalDate.of(2026, 12, 4)).get(30, TimeUnit.SECONDS));
    }
}
