<?php
// This month's events. 'action' is the label of the sign-up link.
return [
    ['title' => 'Toddler Rhyme Time', 'audience' => 'kids', 'when' => 'Tue 10 June, 10:30', 'where' => "Children's room",
     'text' => 'Songs, rhymes and a story for under-threes and their grown-ups.', 'action' => 'RSVP', 'full' => false],
    ['title' => 'Digital help drop-in', 'audience' => 'adults', 'when' => 'Wed 11 June, 11:00', 'where' => 'IT suite',
     'text' => 'Bring your phone or laptop: volunteers help with email, apps and online forms.', 'action' => 'Book a place', 'full' => false],
    ['title' => 'Author talk: Ines Calloway', 'audience' => 'adults', 'when' => 'Thu 12 June, 19:00', 'where' => 'Reading room',
     'text' => 'The novelist reads from The Salt Orchard and takes questions from the audience.', 'action' => 'Waitlist', 'full' => true],
    ['title' => 'Family Lego Club', 'audience' => 'kids', 'when' => 'Sat 14 June, 14:00', 'where' => 'Activity room',
     'text' => 'Build to a theme, then vote for the best model. Ages 5 to 11.', 'action' => 'Sign up', 'full' => false],
    ['title' => 'Comic drawing workshop', 'audience' => 'kids', 'when' => 'Sat 14 June, 15:30', 'where' => 'Activity room',
     'text' => 'Panels, speech bubbles and a mini-zine to take home. Ages 10 to 14.', 'action' => 'Register', 'full' => false],
];
