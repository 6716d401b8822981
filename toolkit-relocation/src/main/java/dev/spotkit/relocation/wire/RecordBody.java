package dev.spotkit.relocation.wire;

/**
 * The record-kind body of a frozen record (spec 001 section 4.2). The body has no length of its own, so a
 * decoder must know every kind's layout; kinds without a layout here are refused with
 * {@link WireError#INVALID_FIELD} on {@code recordKind}.
 */
public sealed interface RecordBody {

  /**
   * The recordKind the body belongs to.
   *
   * @return the u8 discriminator.
   */
  int recordKind();

  /**
   * A request to a Spot (recordKind 6), fixed by the golden vectors:
   *
   * <pre>
   *   targetSpot  see {@link TargetSpot}
   *   payload     application-payload-envelope-v1, see {@link ApplicationPayload}
   * </pre>
   *
   * @param targetSpot the addressed Spot.
   * @param payload the application message.
   */
  record SpotRequest(TargetSpot targetSpot, ApplicationPayload payload) implements RecordBody {

    /** The recordKind of a spot request. */
    public static final int KIND = 6;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public SpotRequest {
      Fields.present("targetSpot", targetSpot);
      Fields.present("payload", payload);
    }

    @Override
    public int recordKind() {
      return KIND;
    }
  }
}
