// The shapes of what the server sends (WebSocket messages and HTTP answers) and of what a
// client may send, as JSDoc typedefs for editors and type checkers: no code runs here.
// Generated from server/protocol.py and server/realtime/messages.py by
// `python -m server.realtime.messages --write`; a test fails when it is out of date.

/**
 * A move: an action dict for the engine (docs/rules.md §5), an id echoed in a
 * refusal, and the version the client acted on (older than the table's: `stale`).
 * @typedef {Object} Act
 * @property {"act"} type
 * @property {Object<string, *>} action
 * @property {string|number|null} [id]
 * @property {number|null} [version]
 */

/**
 * A player on autoplay plays for themselves again.
 * @typedef {Object} Back
 * @property {"back"} type
 */

/**
 * @typedef {Object} BidAction
 * @property {"bid"} type
 * @property {number} bid
 */

/**
 * @typedef {Object} BlindNilAction
 * @property {"blind_nil"} type
 * @property {boolean} declare
 */

/**
 * @typedef {Object} BotSeated
 * @property {number} seat
 * @property {string} bot
 */

/**
 * A chat line, trimmed: 1 to `chat_max_length` printable characters.
 * @typedef {Object} Chat
 * @property {"chat"} type
 * @property {string} [text]
 */

/**
 * One stored chat line (`seat` null for a spectator), as clients receive it.
 * @typedef {Object} ChatLine
 * @property {number} version
 * @property {number|null} seat
 * @property {string} name
 * @property {string} text
 * @property {string} at
 */

/**
 * A chat line, to every socket of the table.
 * @typedef {Object} ChatMessage
 * @property {number} version
 * @property {number|null} seat
 * @property {string} name
 * @property {string} text
 * @property {string} at
 * @property {"chat"} type
 */

/**
 * The seat about to lead claims every remaining trick (offered in ``legal`` only
 * when it is sure to take them all, ``server.engine.claims``).
 * @typedef {Object} ClaimAction
 * @property {"claim"} type
 */

/**
 * @typedef {Hello|Act|Chat|Seed|Back|Ping|Hint|Review} ClientMessage
 */

/**
 * A club game: `ended` when it finished (null for an abandoned game), `rated`,
 * `winner` the winning side's index, `bots` whether a bot or a guest played a seat
 * (then only the members were rated), `abandoned` when ended by the host or left
 * unfinished (never rated).
 * @typedef {Object} ClubGame
 * @property {string} table
 * @property {string|null} ended
 * @property {boolean} rated
 * @property {number|null} winner
 * @property {Array<ClubSide>} sides
 * @property {string} preset
 * @property {boolean} bots
 * @property {boolean} abandoned
 */

/**
 * Older finished games of a club, newest first, from `offset`.
 * @typedef {Object} ClubGames
 * @property {number} offset
 * @property {Array<ClubGame>} games
 */

/**
 * A fresh club link: the old invite no longer lets anyone join.
 * @typedef {Object} ClubInvite
 * @property {string} invite
 * @property {string} url
 */

/**
 * A member with their overall figures, their rating (`rating`: the conservative
 * value, mu - 3 sigma, higher is better; `mu` and `sigma` its estimate and uncertainty)
 * and their figures per preset.
 * @typedef {Object} ClubMember
 * @property {number} games
 * @property {number} wins
 * @property {number} hands
 * @property {number} contracts
 * @property {number} contracts_made
 * @property {number} sets
 * @property {number} nils
 * @property {number} nils_made
 * @property {number} blind_nils
 * @property {number} blind_nils_made
 * @property {number} bags
 * @property {number} ten_for_two_hundreds
 * @property {number} points
 * @property {number} bags_per_hand
 * @property {number} points_per_hand
 * @property {string} id
 * @property {string} name
 * @property {boolean} removed
 * @property {number} rating
 * @property {number} mu
 * @property {number} sigma
 * @property {Object<string, ClubStats>} presets
 */

/**
 * @typedef {Object} ClubMemberName
 * @property {string} id
 * @property {string} name
 */

/**
 * A club night as its members and host read it (`watch_url` only for them). `you`:
 * the reading member's id (None for the host); `seat`: their seat in the round being
 * played (None when sitting out, for the host, or before the first round).
 * @typedef {Object} ClubNight
 * @property {string} id
 * @property {string} club
 * @property {"waiting"|"playing"|"over"} status
 * @property {number} round
 * @property {number} rounds
 * @property {"rotating"|"pairs"} format
 * @property {"sit_out"|"bots"} fill
 * @property {number|null} hands
 * @property {boolean} paused
 * @property {boolean} ended
 * @property {Array<string>} members
 * @property {Object<string, string>} names
 * @property {Array<Rules>} rules
 * @property {Array<NightRound>} schedule
 * @property {Array<string>} tables
 * @property {Array<NightStanding>} standings
 * @property {NightEvenness} evenness
 * @property {string|null} you
 * @property {NightSeat|null} seat
 * @property {string} [watch_url]
 */

/**
 * @typedef {Object} ClubNights
 * @property {Array<NightSummary>} nights
 */

/**
 * Everything the club page shows: members (with stats and ratings), the
 * leaderboard (member ids, best rating first), live tables, games (abandoned ones, then
 * the latest 100 finished, newest first; `games_total` counts them all, the rest are
 * read with `GET /api/clubs/{id}/games`);
 * `you` the asking member's id (null for the host's token), `host` whether the token
 * is the host's.
 * @typedef {Object} ClubPage
 * @property {string} id
 * @property {string} name
 * @property {string|null} you
 * @property {boolean} host
 * @property {Object<string, boolean|number|string|Array<string>|null>|null} rules
 * @property {Array<ClubMember>} members
 * @property {Array<string>} leaderboard
 * @property {Array<ClubTable>} tables
 * @property {Array<ClubGame>} games
 * @property {number} games_total
 */

/**
 * @typedef {Object} ClubSide
 * @property {Array<string>} members
 * @property {number} score
 */

/**
 * A member's figures over their finished, rated club games (the hands they played):
 * `contracts` the hands their side had a contract, split into `contracts_made` and
 * `sets`; `nils` their own nil and blind nil bids, `nils_made` those made; `bags` the
 * bags their side took; `ten_for_two_hundreds` contracts of 10 or more made under that
 * rule; `points` their side's points; `bags_per_hand` and `points_per_hand` averages.
 * @typedef {Object} ClubStats
 * @property {number} games
 * @property {number} wins
 * @property {number} hands
 * @property {number} contracts
 * @property {number} contracts_made
 * @property {number} sets
 * @property {number} nils
 * @property {number} nils_made
 * @property {number} blind_nils
 * @property {number} blind_nils_made
 * @property {number} bags
 * @property {number} ten_for_two_hundreds
 * @property {number} points
 * @property {number} bags_per_hand
 * @property {number} points_per_hand
 */

/**
 * A live table of the club, to watch or sit at.
 * @typedef {Object} ClubTable
 * @property {string} id
 * @property {string} name
 * @property {"waiting"|"playing"|"over"|"ended"} status
 * @property {Array<string|null>} seats
 */

/**
 * A new club: the only answer carrying its invite and host token, once, to its maker.
 * @typedef {Object} CreatedClub
 * @property {string} id
 * @property {string} name
 * @property {string} invite
 * @property {string} host_token
 * @property {string} url
 */

/**
 * The create answer: the only one that carries the table's secrets, once, to the host.
 * @typedef {Object} CreatedTable
 * @property {string} id
 * @property {string} name
 * @property {string} url
 * @property {Rules} rules
 * @property {"waiting"|"playing"|"over"|"ended"} status
 * @property {number} version
 * @property {number} game_number
 * @property {Array<PublicSeat>} seats
 * @property {Array<SideScore>} scores
 * @property {number|null} winner
 * @property {number} hands_played
 * @property {string} created
 * @property {boolean} listed
 * @property {number|null} host_seat
 * @property {number|null} turn_seconds
 * @property {string|null} deadline
 * @property {Array<number>} series
 * @property {boolean} hints
 * @property {string} invite
 * @property {string} host_token
 * @property {string} invite_url
 */

/**
 * Two players: keep the stock's top card (``keep``) or the one under it.
 * @typedef {Object} DrawAction
 * @property {"draw"} type
 * @property {boolean} keep
 */

/**
 * A refusal, to the socket that asked only; `reason` is the engine's own code.
 * @typedef {Object} ErrorMessage
 * @property {"error"} type
 * @property {string|number|null} id
 * @property {string} code
 * @property {string} message
 * @property {string} [reason]
 */

/**
 * A row of the history: a stored hand and its number in the game (from 1).
 * @typedef {Object} FinishedHand
 * @property {number|null} dealer
 * @property {Array<number|"blind_nil"|null>} bids
 * @property {Array<number>} tricks
 * @property {Array<Array<string>>} deal
 * @property {Array<SideResult>} sides
 * @property {Array<TimerMove>} timer_moves
 * @property {Array<TrickPlays>|null} plays
 * @property {HandFairness|null} fairness
 * @property {HandClaim|null} claim
 * @property {number} hand
 */

/**
 * A hand ended by a claim: the claimant, the cards it laid down, and the tricks
 * credited to it without being played.
 * @typedef {Object} HandClaim
 * @property {number} seat
 * @property {Array<string>} cards
 * @property {number} tricks
 */

/**
 * What proves one finished hand's deal: its server seed, the commitment shown before
 * it, the client seeds used and the deck in deal order (card codes).
 * @typedef {Object} HandFairness
 * @property {string} server_seed
 * @property {string} commitment
 * @property {Object<string, string>} client_seeds
 * @property {Array<string>} deck
 */

/**
 * A finished hand: ``Game.hand_results`` entries and a view's ``last_hand``;
 * ``claim`` only when a claim ended it.
 * @typedef {Object} HandResult
 * @property {number} hand_number
 * @property {number} dealer
 * @property {Array<number|"blind_nil"|null>} bids
 * @property {Array<number>} tricks
 * @property {Array<SideResult>} sides
 * @property {Array<Array<string>>} deal
 * @property {HandClaim} [claim]
 */

/**
 * @typedef {Object} Health
 * @property {"ok"} status
 */

/**
 * First message: a seat token (none: watch), the host token, the last version seen.
 * @typedef {Object} Hello
 * @property {"hello"} type
 * @property {string|null} [token]
 * @property {string|null} [host_token]
 * @property {number|null} [version]
 */

/**
 * A pass, a draw or a blind nil decision as everyone may see it: its cards, choice
 * or decision are private, so it shows its type alone.
 * @typedef {Object} HiddenMove
 * @property {"pass"|"draw"|"blind_nil"} type
 */

/**
 * A player on turn asks what the expert bot would do; nothing is played.
 * @typedef {Object} Hint
 * @property {"hint"} type
 * @property {string|number|null} [id]
 */

/**
 * The answer to `hint`, to the asking socket only: the expert bot's choice from
 * that seat's view at `version`.
 * @typedef {Object} HintMessage
 * @property {"hint"} type
 * @property {string|number|null} id
 * @property {number} version
 * @property {BidAction|PlayAction|PassAction|BlindNilAction|DrawAction|ClaimAction} action
 */

/**
 * The finished hands of the table's current game, in order.
 * @typedef {Object} History
 * @property {string} id
 * @property {number} game_number
 * @property {Array<FinishedHand>} hands
 */

/**
 * A member added; `token` is the only proof of membership, shown this once.
 * @typedef {Object} JoinedClub
 * @property {ClubMemberName} member
 * @property {string} token
 */

/**
 * @typedef {Array<PublicTable>} Lobby
 */

/**
 * The next deal as every state shows it: its hand number (1 for the next game's
 * first), the commitment of its server seed, and the client seeds so far.
 * @typedef {Object} NextDeal
 * @property {number} hand
 * @property {string} commitment
 * @property {Object<string, string>} client_seeds
 */

/**
 * How evenly the schedule spreads partners and opponents, beside the ideal.
 * @typedef {Object} NightEvenness
 * @property {number} partner_max
 * @property {number} partner_ideal
 * @property {number} opponent_max
 * @property {number} opponent_ideal
 * @property {number} sit_out_min
 * @property {number} sit_out_max
 */

/**
 * One round of a night's schedule: its tables, and the members sitting it out.
 * @typedef {Object} NightRound
 * @property {number} round
 * @property {Array<NightTable>} tables
 * @property {Array<string>} sitting_out
 */

/**
 * Where the reading member sits in the round being played (`table` None until the
 * round's tables are made).
 * @typedef {Object} NightSeat
 * @property {number} round
 * @property {string|null} table
 * @property {number} seat
 */

/**
 * A member's night so far. `points`, `games` and `wins` count finished night games
 * (the side's points in the game; a win is the highest score, a tie is none);
 * `live_points` adds the hands of the game being played; `hands`, `contracts` and
 * `contracts_made` count every hand played. `place` is 1 for the leader, shared when
 * every tie-break ties (docs/clubs.md).
 * @typedef {Object} NightStanding
 * @property {string} member
 * @property {string} name
 * @property {number} place
 * @property {number} points
 * @property {number} games
 * @property {number} wins
 * @property {number} live_points
 * @property {number} hands
 * @property {number} contracts
 * @property {number} contracts_made
 */

/**
 * A club's night as its list shows it, newest first.
 * @typedef {Object} NightSummary
 * @property {string} id
 * @property {string} created
 * @property {"waiting"|"playing"|"over"} status
 * @property {number} round
 * @property {number} rounds
 * @property {"rotating"|"pairs"} format
 * @property {number} members
 * @property {boolean} ended
 */

/**
 * A table of a night's round: each seat's member (None: a bot); once the round has
 * started, the table's id and status (None before).
 * @typedef {Object} NightTable
 * @property {Array<string|null>} seats
 * @property {string|null} [table]
 * @property {"waiting"|"playing"|"over"|"ended"|null} [status]
 */

/**
 * What the night's watch link shows anyone holding it: the standings and the
 * tables to watch, never a token.
 * @typedef {Object} NightWatch
 * @property {string} id
 * @property {string} club_name
 * @property {"waiting"|"playing"|"over"} status
 * @property {number} round
 * @property {number} rounds
 * @property {boolean} paused
 * @property {Object<string, string>} names
 * @property {Array<NightRound>} schedule
 * @property {Array<string>} tables
 * @property {Array<NightStanding>} standings
 */

/**
 * @typedef {Object} NilResult
 * @property {number} seat
 * @property {boolean} blind
 * @property {boolean} made
 * @property {number} points
 */

/**
 * The cards a seat gives its partner (blind nil, docs/rules.md §5).
 * @typedef {Object} PassAction
 * @property {"pass"} type
 * @property {Array<string>} cards
 */

/**
 * A view's pass: any ``count`` cards of the seat's own hand (answered by a
 * :class:`PassAction`), instead of the thousands of sets ``Game.legal`` lists.
 * @typedef {Object} PassChoice
 * @property {"pass"} type
 * @property {number} count
 */

/**
 * Keep-alive, answered with `pong` (also before `hello`).
 * @typedef {Object} Ping
 * @property {"ping"} type
 */

/**
 * @typedef {Object} PlayAction
 * @property {"play"} type
 * @property {string} card
 */

/**
 * The answer to `ping`.
 * @typedef {Object} PongMessage
 * @property {"pong"} type
 */

/**
 * @typedef {Object<string, Rules>} Presets
 */

/**
 * One seat as everyone may see it: never a token. `autoplay` and its reason ("away"
 * or "timer") are there only while a bot plays for the seat's player.
 * @typedef {Object} PublicSeat
 * @property {number} seat
 * @property {string|null} name
 * @property {string|null} bot
 * @property {boolean} connected
 * @property {boolean} [autoplay]
 * @property {string} [autoplay_reason]
 */

/**
 * The `table` object: what anyone may know of a table, never a secret, never a
 * hidden card. `scores` has one entry per side, none before the first game starts;
 * `series` the games each side won at this table, across rematches; `hints` whether
 * players may ask for the expert bot's choice.
 * @typedef {Object} PublicTable
 * @property {string} id
 * @property {string} name
 * @property {string} url
 * @property {Rules} rules
 * @property {"waiting"|"playing"|"over"|"ended"} status
 * @property {number} version
 * @property {number} game_number
 * @property {Array<PublicSeat>} seats
 * @property {Array<SideScore>} scores
 * @property {number|null} winner
 * @property {number} hands_played
 * @property {string} created
 * @property {boolean} listed
 * @property {number|null} host_seat
 * @property {number|null} turn_seconds
 * @property {string|null} deadline
 * @property {Array<number>} series
 * @property {boolean} hints
 */

/**
 * `checks` names each dependency's state: "ok", "not configured" or "down: <why>".
 * @typedef {Object} Readiness
 * @property {"ready"|"unavailable"} status
 * @property {Array<string>} [down]
 * @property {Object<string, string>} checks
 */

/**
 * A player asks what the expert bot would have chosen at each of their own bids and
 * plays of a finished hand of this game; answered with `review`.
 * @typedef {Object} Review
 * @property {"review"} type
 * @property {number} hand
 * @property {string|number|null} [id]
 */

/**
 * One choice of the reviewing seat: the trick it was in (1-based; 0 for a bid or a
 * blind nil), what the player chose, and what the expert bot would have chosen there
 * from the player's view at that moment.
 * @typedef {Object} ReviewChoice
 * @property {number} trick
 * @property {BidAction|PlayAction|PassAction|BlindNilAction|DrawAction|ClaimAction} action
 * @property {BidAction|PlayAction|PassAction|BlindNilAction|DrawAction|ClaimAction} expert
 */

/**
 * The answer to `review`, to the asking socket only: each of `seat`'s choices in
 * hand `hand` of game `game_number` that had more than one option, in order.
 * @typedef {Object} ReviewMessage
 * @property {"review"} type
 * @property {string|number|null} id
 * @property {number} game_number
 * @property {number} hand
 * @property {number} seat
 * @property {Array<ReviewChoice>} choices
 */

/**
 * Every rule groups disagree on, one field each, named as in docs/rules.md. Each
 * field's default is the ``standard`` preset's value (the presets are built from them).
 * @typedef {Object} Rules
 * @property {2|3|4|6} [players]
 * @property {boolean} [partnerships]
 * @property {"standard"|"jokers"|"jokers_deuces"} [deck]
 * @property {"individual"|"team"|"whiz"|"mirror"|"suicide"} [bidding]
 * @property {Array<string>|null} [bidding_formats]
 * @property {number} [min_team_bid]
 * @property {boolean} [nil]
 * @property {number} [nil_bonus]
 * @property {number} [nil_penalty]
 * @property {"bags"|"contract"} [nil_tricks]
 * @property {number} [nil_pass]
 * @property {boolean} [blind_nil]
 * @property {number|null} [blind_nil_behind_by]
 * @property {number} [blind_nil_bonus]
 * @property {number} [blind_nil_penalty]
 * @property {number} [blind_nil_pass]
 * @property {boolean} [ten_for_two_hundred]
 * @property {number} [ten_for_two_hundred_set]
 * @property {"left_of_dealer"|"two_clubs"|"lowest_club"} [first_lead]
 * @property {boolean} [spades_broken_to_lead]
 * @property {boolean} [bags]
 * @property {number} [bag_limit]
 * @property {number} [bag_penalty]
 * @property {"none"|"bonus"|"win"} [all_tricks]
 * @property {number} [all_tricks_bonus]
 * @property {number} [target_score]
 * @property {number|null} [lose_score]
 * @property {number|null} [mercy_margin]
 * @property {boolean} [duplicate_later_wins]
 * @property {number|null} [hand_limit]
 */

/**
 * A card played by a seat.
 * @typedef {Object} SeatCard
 * @property {number} seat
 * @property {string} card
 */

/**
 * A seat given to someone new: its fresh token and the link that carries it.
 * @typedef {Object} SeatReissued
 * @property {number} seat
 * @property {string} token
 * @property {string} continue_url
 */

/**
 * A seat taken; `token` is the only proof of owning it, shown this once.
 * @typedef {Object} SeatTaken
 * @property {number} seat
 * @property {string} token
 */

/**
 * A seated player's own seed for the next deal (docs/fairness.md): 1 to 64 printable
 * characters; the last one a seat sends counts.
 * @typedef {Object} Seed
 * @property {"seed"} type
 * @property {string} [value]
 */

/**
 * @typedef {StateMessage|ChatMessage|ErrorMessage|PongMessage|HintMessage|ReviewMessage} ServerMessage
 */

/**
 * One side's breakdown of a scored hand (``server.engine.scoring.score_sides``).
 * @typedef {Object} SideResult
 * @property {Array<number>} seats
 * @property {number} contract
 * @property {number} taken
 * @property {number} points
 * @property {number} score
 * @property {number} bags
 * @property {number} bag_penalty
 * @property {Array<NilResult>} nil
 * @property {boolean} all_tricks
 */

/**
 * A side's standing: its score and bag count.
 * @typedef {Object} SideScore
 * @property {number} score
 * @property {number} bags
 */

/**
 * One socket's view of the table after `hello` and after every change. The answer to
 * `hello` alone carries `chat` (the lines so far) and `protocol` (its version).
 * @typedef {Object} StateMessage
 * @property {"state"} type
 * @property {number} version
 * @property {number|null} seat
 * @property {View|null} state
 * @property {PublicTable} table
 * @property {boolean} host
 * @property {string|null} deadline
 * @property {string|null} server_time
 * @property {Array<TimerMove>} timer_moves
 * @property {NextDeal|null} fairness
 * @property {Array<ChatLine>} [chat]
 * @property {number} [protocol]
 */

/**
 * A move the turn timer made for a seat whose player did not act in time.
 * @typedef {Object} TimerMove
 * @property {number} seat
 * @property {BidAction|PlayAction|HiddenMove} action
 */

/**
 * One trick of a finished hand's record (``Game.plays_of``).
 * @typedef {Object} TrickPlays
 * @property {number} leader
 * @property {Array<SeatCard>} cards
 * @property {number} winner
 */

/**
 * ``Game.view(seat)``: everything ``seat`` may see (docs/protocol.md).
 * @typedef {Object} View
 * @property {"blind"|"pass"|"draw"|"bid"|"play"|"over"} phase
 * @property {Array<number>} turn
 * @property {Array<number>} hand_sizes
 * @property {Array<SeatCard>} trick
 * @property {*} last_trick
 * @property {*} played
 * @property {Array<number>} tricks_won
 * @property {boolean} spades_broken
 * @property {Array<number>} pending
 * @property {number} stock_size
 * @property {number} players
 * @property {Array<Array<number>>} sides
 * @property {number} dealer
 * @property {Array<number|"blind_nil"|null>} bids
 * @property {Array<number|null>|null} contracts
 * @property {Array<SideScore>} scores
 * @property {number} target_score
 * @property {"individual"|"team"|"whiz"|"mirror"|"suicide"} bidding
 * @property {number} hand_number
 * @property {HandResult|null} last_hand
 * @property {number|null} winner
 * @property {number|null} seat
 * @property {Array<string>|null} hand
 * @property {Array<BidAction|PlayAction|PassAction|BlindNilAction|DrawAction|ClaimAction>|Array<PassChoice>} legal
 * @property {string|null} draw_card
 */

export {};
