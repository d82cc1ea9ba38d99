<?php
/**
 * The café's facts: opening hours, the coming sessions and the volunteer fixers.
 * Session dates are written the British way, day/month/year.
 */

const HOURS = [
    'opens' => '10:30',
    'closes' => '14:00',
    'last_in' => '13:15',
];

const SESSIONS = [
    ['date' => '10/10/2026', 'venue' => "St Aidan's Church Hall, Kiln Road", 'note' => 'Bike corner in the car park, weather permitting.'],
    ['date' => '14/11/2026', 'venue' => 'Ashdown Library, upstairs meeting room', 'note' => 'Smaller room: no furniture this month.'],
    ['date' => '12/12/2026', 'venue' => "St Aidan's Church Hall, Kiln Road", 'note' => 'Fairy lights and toys before Christmas.'],
    ['date' => '09/01/2027', 'venue' => "St Aidan's Church Hall, Kiln Road", 'note' => 'Textiles table doubled: bring your mending.'],
];

const FIXERS = [
    ['name' => 'Maud Pellow', 'skills' => ['Lamps', 'Kettles', 'Toasters'], 'about' => 'Retired electrician; tests every plug before it goes home.'],
    ['name' => 'Dev Rathore', 'skills' => ['Bikes', 'Prams', 'Scooters'], 'about' => 'Runs the bike corner and never leaves a chain dry.'],
    ['name' => 'Gwen Salter', 'skills' => ['Zips', 'Hems', 'Darning', 'Knitwear'], 'about' => 'Can put a new zip in a coat while you drink your tea.'],
    ['name' => 'Tomasz Wilk', 'skills' => ['Chairs', 'Drawers', 'Frames'], 'about' => 'Joiner by trade; glue, clamps and patience.'],
    ['name' => 'Bernard Achterberg', 'skills' => ['Clocks', 'Radios', 'Record players'], 'about' => 'Keeps a drawer of valves older than most of the visitors.'],
    ['name' => 'Ines Okafor', 'skills' => ['Jewellery', 'Toys', 'Glasses frames'], 'about' => 'Small hands, smaller screwdrivers, endless beads.'],
];

/** The date of a session as people read it, e.g. "Saturday 10 October". */
function session_day(array $session): string
{
    return date('l j F', (int) strtotime($session['date']));
}
