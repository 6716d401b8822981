package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.OnMessage;
import dev.spotkit.core.OnRequest;
import dev.spotkit.core.SpotkitException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One cell's handlers by message class. Filled during configure on one thread, then frozen; the freeze and
 * the mailbox open that follows publish it to the workers.
 */
public final class HandlerTable {

  /**
   * One registered handler: exactly one of the two is non-null.
   *
   * @param type the message class.
   * @param oneWay one-way handler or null.
   * @param request request handler or null.
   */
  record Entry(Class<?> type, OnMessage<Object> oneWay, OnRequest<Object, Object> request) {
    Object invoke(final Object message) throws Exception {
      if (request != null) {
        return request.handle(message);
      }
      oneWay.handle(message);
      return null;
    }
  }

  private static final Entry NONE = new Entry(Void.class, null, null);

  private final Map<Class<?>, Entry> entries = new LinkedHashMap<>();
  private final Map<String, dev.spotkit.core.OnTick> timerHandlers = new ConcurrentHashMap<>();
  private final Map<Class<?>, Entry> resolved = new ConcurrentHashMap<>();
  private volatile boolean frozen;
  private final String owner;

  HandlerTable(final String owner) {
    this.owner = owner;
  }

  /**
   * Adds a one-way handler.
   *
   * @param type message class.
   * @param handler the handler.
   * @throws SpotkitException.InvalidOperation on a duplicate type or after configure.
   */
  @SuppressWarnings("unchecked")
  public void addOneWay(final Class<?> type, final OnMessage<?> handler) {
    add(new Entry(requireType(type), (OnMessage<Object>) requireHandler(handler), null));
  }

  /**
   * Adds a request handler.
   *
   * @param type request class.
   * @param handler the handler.
   * @throws SpotkitException.InvalidOperation on a duplicate type or after configure.
   */
  @SuppressWarnings("unchecked")
  public void addRequest(final Class<?> type, final OnRequest<?, ?> handler) {
    add(new Entry(requireType(type), null, (OnRequest<Object, Object>) requireHandler(handler)));
  }

  /**
   * Declares the callback of a named timer, used when a timer of that name moves here with the actor (spec 001
   * section 4.2: registrations travel, callbacks do not).
   *
   * @param name the timer name, 1..255 UTF-8 bytes.
   * @param tick the callback.
   * @throws SpotkitException.InvalidOperation on a duplicate name, a bad name, or after configure.
   */
  public void addTimer(final String name, final dev.spotkit.core.OnTick tick) {
    Ids.requireValid("timer name", name);
    requireHandler(tick);
    if (frozen) {
      throw new SpotkitException.InvalidOperation("handlers of " + owner + " are fixed after configure();"
          + " declare timer '" + name + "' inside configure(on)");
    }
    if (timerHandlers.putIfAbsent(name, tick) != null) {
      throw new SpotkitException.InvalidOperation(owner + " already declares timer '" + name + "'");
    }
  }

  /** The declared callback of a timer name, or null. */
  public dev.spotkit.core.OnTick timer(final String name) {
    return timerHandlers.get(name);
  }

  private void add(final Entry entry) {
    if (frozen) {
      throw new SpotkitException.InvalidOperation("handlers of " + owner + " are fixed after configure();"
          + " register every handler inside configure(on)");
    }
    if (entries.putIfAbsent(entry.type(), entry) != null) {
      throw new SpotkitException.InvalidOperation(owner + " already has a handler for "
          + entry.type().getName() + "; register one handler per message class");
    }
  }

  public void freeze() {
    frozen = true;
  }

  /**
   * Forgets every handler (their lambdas hold the object's instance): for an incarnation that ended here but whose
   * cell stays reachable a while (a moved actor's source keeps it for the 30 s of Message Follow, spec 001 section
   * 10). Only when no turn of the object runs or will run here again.
   */
  public void release() {
    frozen = true;
    entries.clear();
    resolved.clear();
    timerHandlers.clear();
    lastHit = null;
  }

  /**
   * The handler for a message class: exact match, else the first registered supertype; null if none. The class
   * resolved last is answered without the map (most actors see one message class at a time).
   */
  Entry find(final Class<?> type) {
    final LastHit last = lastHit;
    if (last != null && last.type == type) {
      return last.entry == NONE ? null : last.entry;
    }
    final Entry hit = resolved.computeIfAbsent(type, this::search);
    lastHit = new LastHit(type, hit);
    return hit == NONE ? null : hit;
  }

  /** The last class resolved and its entry, as one immutable pair (read and written racily, never torn). */
  private record LastHit(Class<?> type, Entry entry) {
  }

  private LastHit lastHit;

  private Entry search(final Class<?> type) {
    final Entry exact = entries.get(type);
    if (exact != null) {
      return exact;
    }
    for (Entry entry : entries.values()) {
      if (entry.type().isAssignableFrom(type)) {
        return entry;
      }
    }
    return NONE;
  }

  private static Class<?> requireType(final Class<?> type) {
    if (type == null) {
      throw new SpotkitException.InvalidOperation("message class must not be null");
    }
    return type;
  }

  private static <T> T requireHandler(final T handler) {
    if (handler == null) {
      throw new SpotkitException.InvalidOperation("handler must not be null");
    }
    return handler;
  }
}
