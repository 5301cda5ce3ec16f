package io.github.purefuse.channel.internal.tools;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.NegativeEntry;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.PageReady;
import io.github.purefuse.api.reply.PollEvents;
import io.github.purefuse.api.reply.SeekOffset;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.abi.InitFlags;
import io.github.purefuse.channel.internal.abi.Le;
import io.github.purefuse.channel.internal.abi.NotifyCode;
import io.github.purefuse.channel.internal.codec.InitOut;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.ReplyDecoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.jspecify.annotations.Nullable;

/**
 * Prints a {@link FuseCapture FUSECAP1} capture one frame per line, for people reading FUSE traffic:
 * <pre>
 * K&gt;S LOOKUP unique=4 nodeid=1 uid=0 gid=0 pid=812 name="hello"
 * S&gt;K reply LOOKUP unique=4 nodeid=2 generation=0 ino=2 mode=0100444 size=13 ...
 * </pre>
 * {@code K>S} is a request (kernel to server), {@code S>K} a reply (named after the request with the same
 * unique) or a notification. A frame that cannot be decoded gets a line saying why, and decoding goes on.
 * Run it with {@code bin/fuse-decode FILE}.
 */
public final class FuseDecode {
    private final RequestDecoder decoder = new RequestDecoder();
    private final Map<Long, Incoming> pending = new HashMap<>();

    private FuseDecode() {
    }

    /**
     * Decodes the capture named by the only argument and prints it to standard output.
     *
     * @param args one capture file
     */
    public static void main(String[] args) {
        String usage = "usage: fuse-decode FILE.fusecap   (prints each FUSE frame of a FUSECAP1 capture as one line)";
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            System.out.println(usage);
            return;
        }
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println(usage);
            System.exit(2);
            return;
        }
        List<FuseCapture.Frame> frames;
        try {
            frames = FuseCapture.read(Path.of(args[0]));
        } catch (IOException e) {
            System.err.println("fuse-decode: " + ErrnoException.describe(Path.of(args[0]), e));
            System.exit(1);
            return;
        }
        print(frames, System.out);
        System.out.flush();
    }

    /**
     * Prints every frame as one line.
     *
     * @param frames the frames of a capture, in order
     * @param out    where the lines go
     */
    public static void print(List<FuseCapture.Frame> frames, PrintStream out) {
        lines(frames).forEach(out::println);
    }

    /**
     * Describes every frame ({@code Replay.describe}, {@link #print}).
     *
     * @param frames the frames of a capture, in order
     * @return one line per frame, without line breaks
     */
    public static List<String> lines(List<FuseCapture.Frame> frames) {
        FuseDecode d = new FuseDecode();
        List<String> out = new java.util.ArrayList<>(frames.size());
        for (FuseCapture.Frame f : frames) {
            out.add(d.line(f));
        }
        return out;
    }

    /**
     * Describes one frame.
     *
     * @param f the frame
     * @return its line, without a line break
     */
    String line(FuseCapture.Frame f) {
        if (f.toServer()) {
            try {
                Incoming r = decoder.decode(f.buffer());
                pending.put(r.header().unique(), r);
                return "K>S " + request(r);
            } catch (ProtocolException e) {
                return "K>S frame " + f.index() + ": cannot decode (" + f.bytes().length + " bytes): " + e.getMessage();
            }
        }
        ByteBuffer b = f.buffer();
        if (f.bytes().length < 16) {
            return "S>K frame " + f.index() + ": cannot decode: " + f.bytes().length + " bytes, shorter than fuse_out_header";
        }
        int error = Le.i32(b, 4);
        long unique = Le.i64(b, 8);
        if (unique == 0) {
            return "S>K " + notification(b, error);
        }
        Incoming req = pending.remove(unique);
        if (req == null) {
            return "S>K reply unique=" + Long.toUnsignedString(unique) + " error=" + error
                    + " to no request seen (" + f.bytes().length + " bytes)";
        }
        String head = "S>K reply " + Opcodes.shortName(req.header().opcode()) + " unique=" + Long.toUnsignedString(unique);
        try {
            if (req instanceof Init init && error == 0) {
                InitOut o = ReplyDecoder.decodeInit(init, b);
                decoder.minor(o.minor());
                return head + " major=" + o.major() + " minor=" + o.minor() + " max_readahead=" + o.maxReadahead()
                        + " max_write=" + o.maxWrite() + " max_pages=" + o.maxPages() + " max_background=" + o.maxBackground()
                        + " congestion_threshold=" + o.congestionThreshold() + " time_gran=" + o.timeGran()
                        + " flags=" + InitFlags.describe(o.flags());
            }
            FuseReply reply = ReplyDecoder.decode(req, b);
            return head + " " + reply(req, reply, b);
        } catch (ProtocolException e) {
            return head + " cannot decode (" + f.bytes().length + " bytes, error " + error + "): " + e.getMessage();
        }
    }

    static String request(Incoming incoming) {
        RequestHeader h = incoming.header();
        Object r = incoming instanceof Incoming.ForFilesystem(FuseRequest request) ? request : incoming;
        StringJoiner j = new StringJoiner(" ");
        j.add(Opcodes.shortName(h.opcode()));
        j.add("unique=" + Long.toUnsignedString(h.unique()));
        j.add("nodeid=" + Long.toUnsignedString(h.nodeid()));
        j.add("uid=" + Integer.toUnsignedString(h.uid()) + " gid=" + Integer.toUnsignedString(h.gid())
                + " pid=" + Integer.toUnsignedString(h.pid()));
        if (h.totalExtlen() != 0) {
            j.add("total_extlen=" + h.totalExtlen());
        }
        for (RecordComponent c : r.getClass().getRecordComponents()) {
            if (c.getName().equals("header")) {
                continue;
            }
            Object v;
            try {
                v = c.getAccessor().invoke(r);
            } catch (ReflectiveOperationException e) {
                v = "?";
            }
            if (r instanceof Init && c.getName().equals("flags") && v instanceof Long flags) {
                j.add("flags=" + InitFlags.describe(flags));
            } else {
                j.add(c.getName() + "=" + value(c.getName(), v));
            }
        }
        return j.toString();
    }

    static String value(String name, Object v) {
        return switch (v) {
            case String s -> '"' + FileNames.printable(s).replace("\"", "\\\"") + '"'; // bytes that are not UTF-8 as \xHH
            case FileHandle fh -> Long.toUnsignedString(fh.value());
            case NodeId n -> Long.toUnsignedString(n.value());
            case byte[] bytes -> "<" + bytes.length + " bytes>";
            case Long l -> Long.toUnsignedString(l);
            case Integer i when name.equals("flags") || name.toLowerCase().endsWith("flags") || name.toLowerCase().endsWith("mask") || name.equals("mode")
                    -> "0x" + Integer.toHexString(i);
            case Integer i -> Integer.toUnsignedString(i);
            case List<?> list -> list.size() + "" + list;
            default -> String.valueOf(v);
        };
    }

    static String reply(Incoming req, FuseReply reply, ByteBuffer frame) throws ProtocolException {
        return switch (reply) {
            case Failure f -> "error=-" + f.errno().code() + " " + f.errno().name();
            case Ok ok -> "ok";
            case Entry e -> "nodeid=" + Long.toUnsignedString(e.nodeId().value()) + " generation=" + e.generation() + " "
                    + attr(e.attr()) + " entry_valid=" + duration(e.entryTimeout()) + " attr_valid=" + duration(e.attrTimeout());
            case NegativeEntry n -> "nodeid=0 (negative) entry_valid=" + duration(n.entryTimeout());
            case Attributes a -> attr(a.attr()) + " attr_valid=" + duration(a.attrTimeout());
            case Opened o -> "fh=" + Long.toUnsignedString(o.fh().value()) + " open_flags=" + o.flags()
                    + (o.backingId() != 0 ? " backing_id=" + o.backingId() : "");
            case Data d -> "data=" + d.length() + " bytes";
            case FileRange f -> "file range=" + f.length() + " bytes";
            case LinkTarget t -> "target=" + value("target", FileNames.decode(t.target()));
            case Statistics s -> "blocks=" + s.info().blocks() + " bfree=" + s.info().bfree() + " bavail=" + s.info().bavail()
                    + " files=" + s.info().files() + " ffree=" + s.info().ffree() + " bsize=" + s.info().bsize()
                    + " namelen=" + s.info().namelen() + " frsize=" + s.info().frsize();
            case XattrValue v -> api(req) instanceof Getxattr g && g.size() == 0 ? "size=" + v.length() + " (size probe)"
                    : "value=" + v.length() + " bytes";
            case XattrNames x -> api(req) instanceof Listxattr l && l.size() == 0 ? "size=" + x.encoded().length + " (size probe)"
                    : "names=" + x.names();
            case SeekOffset s -> "offset=" + s.offset();
            case PollEvents p -> "revents=0x" + Integer.toHexString(p.revents());
            case PageReady p -> page(api(req), frame);
        };
    }

    private static @Nullable FuseRequest api(Incoming r) {
        return r instanceof Incoming.ForFilesystem(FuseRequest request) ? request : null;
    }

    static String page(@Nullable FuseRequest req, ByteBuffer frame) throws ProtocolException {
        if (req == null) {
            throw new ProtocolException(-1, 0, 0, "a directory page answers no READDIR");
        }
        ReplyDecoder.DecodedPage page = ReplyDecoder.decodePage(req, frame);
        StringJoiner j = new StringJoiner(" ", "entries=" + page.entries().size() + (page.entries().isEmpty() ? " (end)" : " ["), "");
        int shown = Math.min(8, page.entries().size());
        for (int i = 0; i < shown; i++) {
            DirEntry e = page.entries().get(i);
            Entry l = page.lookups().get(i);
            j.add(value("name", e.name()) + ":ino=" + Long.toUnsignedString(e.ino()) + ",off=" + Long.toUnsignedString(e.cookie())
                    + (l != null ? ",nodeid=" + Long.toUnsignedString(l.nodeId().value()) : ""));
        }
        String s = j.toString();
        if (page.entries().isEmpty()) {
            return s;
        }
        return s + (page.entries().size() > shown ? " ...]" : "]");
    }

    static String attr(Attr a) {
        return "ino=" + Long.toUnsignedString(a.ino()) + " mode=0" + Integer.toOctalString(a.mode()) + " size=" + a.size()
                + " nlink=" + Integer.toUnsignedString(a.nlink()) + " uid=" + Integer.toUnsignedString(a.uid())
                + " gid=" + Integer.toUnsignedString(a.gid()) + " mtime=" + a.mtime();
    }

    static String duration(Duration d) {
        return d.getNano() == 0 ? d.getSeconds() + "s" : d.getSeconds() + "." + String.format(java.util.Locale.ROOT, "%09d", d.getNano()) + "s";
    }

    static String notification(ByteBuffer b, int code) {
        String name = "notify " + NotifyCode.name(code).replace("FUSE_NOTIFY_", "");
        int len = b.remaining();
        try {
            return switch (code) {
                case NotifyCode.POLL -> name + " kh=" + Long.toUnsignedString(Le.i64(b, 16));
                case NotifyCode.INVAL_INODE -> name + " nodeid=" + Long.toUnsignedString(Le.i64(b, 16)) + " offset=" + Le.i64(b, 24)
                        + " length=" + Le.i64(b, 32);
                case NotifyCode.INVAL_ENTRY -> name + " parent=" + Long.toUnsignedString(Le.i64(b, 16)) + " name=\""
                        + text(b, 32, Le.i32(b, 24)) + "\" flags=0x" + Integer.toHexString(Le.i32(b, 28));
                case NotifyCode.DELETE -> name + " parent=" + Long.toUnsignedString(Le.i64(b, 16)) + " child="
                        + Long.toUnsignedString(Le.i64(b, 24)) + " name=\"" + text(b, 40, Le.i32(b, 32)) + "\"";
                case NotifyCode.STORE -> name + " nodeid=" + Long.toUnsignedString(Le.i64(b, 16)) + " offset=" + Le.i64(b, 24)
                        + " size=" + Integer.toUnsignedString(Le.i32(b, 32));
                case NotifyCode.RETRIEVE -> name + " notify_unique=" + Long.toUnsignedString(Le.i64(b, 16)) + " nodeid="
                        + Long.toUnsignedString(Le.i64(b, 24)) + " offset=" + Le.i64(b, 32) + " size=" + Integer.toUnsignedString(Le.i32(b, 40));
                case NotifyCode.PRUNE -> name + " count=" + Integer.toUnsignedString(Le.i32(b, 16));
                default -> name + " (" + len + " bytes)";
            };
        } catch (IndexOutOfBoundsException e) {
            return name + " cannot decode: " + len + " bytes is too short";
        }
    }

    private static String text(ByteBuffer b, int at, int n) {
        byte[] bytes = new byte[Math.max(0, Math.min(n, b.remaining() - at))];
        b.get(at, bytes);
        return FileNames.printable(FileNames.decode(bytes)).replace("\"", "\\\"");
    }
}
