// The characters shipped with the app (names and facts from the show; episode counts rounded), one per line:
// id|name|status|species|origin|location|episode count. Kept as text so the list stays one line per character.
let bundledCharacterRows = """
    1|Rick Sanchez|Alive|Human|Earth (C-137)|Citadel of Ricks|51
    2|Morty Smith|Alive|Human|unknown|Citadel of Ricks|51
    3|Summer Smith|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|42
    4|Beth Smith|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|42
    5|Jerry Smith|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|39
    6|Abadango Cluster Princess|Alive|Alien|Abadango|Abadango|1
    7|Abradolf Lincler|unknown|Human|Earth (Replacement Dimension)|Testicle Monster Dimension|2
    8|Adjudicator Rick|Dead|Human|unknown|Citadel of Ricks|1
    9|Agency Director|Dead|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|1
    10|Alan Rails|Dead|Human|unknown|Worldender's lair|1
    11|Albert Einstein|Dead|Human|Earth (C-137)|Earth (Replacement Dimension)|1
    12|Alexander|Dead|Human|Earth (C-137)|Anatomy Park|1
    13|Alien Googah|unknown|Alien|unknown|Earth (Replacement Dimension)|1
    14|Alien Morty|unknown|Alien|unknown|Citadel of Ricks|1
    15|Alien Rick|unknown|Alien|unknown|Citadel of Ricks|1
    16|Amish Cyborg|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    17|Annie|Alive|Human|Earth (C-137)|Anatomy Park|1
    18|Antenna Morty|Alive|Human|unknown|Citadel of Ricks|2
    19|Antenna Rick|unknown|Human|unknown|unknown|1
    20|Ants in my Eyes Johnson|unknown|Human|unknown|Interdimensional Cable|1
    21|Aqua Morty|unknown|Humanoid|unknown|Citadel of Ricks|2
    22|Aqua Rick|unknown|Humanoid|unknown|Citadel of Ricks|3
    23|Arcade Alien|unknown|Alien|unknown|Immortality Field Resort|1
    24|Armagheadon|Alive|Alien|Signus 5 Expanse|Signus 5 Expanse|1
    25|Armothy|Dead|unknown|Post-Apocalyptic Earth|Post-Apocalyptic Earth|1
    26|Arthricia|Alive|Alien|Purge Planet|Purge Planet|1
    27|Artist Morty|Alive|Human|unknown|Citadel of Ricks|2
    28|Attila Starwar|Alive|Human|unknown|Interdimensional Cable|3
    29|Baby Legs|Alive|Human|Interdimensional Cable|Interdimensional Cable|1
    30|Baby Poopybutthole|Alive|Poopybutthole|unknown|unknown|1
    31|Baby Wizard|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    32|Bearded Lady|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    33|Beebo|Dead|Alien|Venzenulon 7|Venzenulon 7|1
    34|Benjamin|Alive|Poopybutthole|Interdimensional Cable|Interdimensional Cable|3
    35|Bepisian|Alive|Alien|Bepis 9|Bepis 9|1
    36|Beta-Seven|Alive|Alien|unknown|Earth (Replacement Dimension)|1
    37|Beth Sanchez|Alive|Human|Earth (C-500A)|Earth (C-500A)|1
    38|Beth's Mytholog|Dead|Mythological Creature|Nuptia 4|Nuptia 4|1
    39|Big Boobed Waitress|Alive|Mythological Creature|Fantasy World|Fantasy World|1
    40|Big Head Morty|unknown|Human|unknown|Citadel of Ricks|1
    41|Bill|Alive|Human|Earth (C-137)|Earth (C-137)|1
    42|Birdperson|Dead|Bird-Person|Bird World|Planet Squanch|4
    43|Blamph|Alive|Alien|Earth (Replacement Dimension)|Anatomy Park|1
    44|Blim Blam|Alive|Alien|unknown|Earth (Replacement Dimension)|1
    45|Blue Shirt Morty|unknown|Human|unknown|Citadel of Ricks|1
    46|Squanchy|Alive|Cat-Person|Planet Squanch|Planet Squanch|2
    47|Mr. Poopybutthole|Alive|Poopybutthole|unknown|Earth (Replacement Dimension)|4
    48|Mr. Meeseeks|unknown|Meeseeks|Mr. Meeseeks Box|Earth (Replacement Dimension)|3
    49|Evil Morty|Alive|Human|unknown|Citadel of Ricks|3
    50|Unity|Alive|Alien|unknown|unknown|1
    51|Jessica|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|12
    52|Mr. Goldenfold|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|9
    53|Principal Vagina|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|8
    54|Ethan|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|4
    55|Tammy Guetermann|Alive|Human|Earth (C-137)|Citadel of Ricks|3
    56|Gearhead|Alive|Alien|Gear World|Gear World|1
    57|Krombopulos Michael|Dead|Alien|unknown|Gear World|1
    58|Scary Terry|Alive|Mythological Creature|Dream World|Dream World|1
    59|King Jellybean|Dead|Alien|Fantasy World|Fantasy World|1
    60|Noob-Noob|Alive|Alien|unknown|Vindicator's Base|1
    61|Pickle Rick|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|1
    62|Jaguar|Alive|Human|unknown|Earth (Replacement Dimension)|1
    63|Mr. Nimbus|Alive|Humanoid|Atlantis|Atlantis|2
    64|Glootie|Alive|Alien|unknown|Earth (Replacement Dimension)|1
    65|Snuffles|Alive|Animal|Earth (C-137)|Earth (C-137)|1
    66|Zeep Xanflorp|Alive|Alien|Microverse|Microverse|1
    67|Kyle|Dead|Alien|Miniverse|Miniverse|1
    68|Lucius Needful|Alive|Mythological Creature|Hell|Earth (Replacement Dimension)|1
    69|Fart|Dead|Alien|unknown|unknown|1
    70|Cornvelious Daniel|Alive|Alien|unknown|Earth (C-137)|1
    71|Tiny Rick|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|1
    72|Doofus Rick|Alive|Human|Earth (J19-Zeta-7)|Citadel of Ricks|2
    73|Cop Rick|Alive|Human|unknown|Citadel of Ricks|2
    74|Rick Prime|Dead|Human|unknown|unknown|3
    75|Space Beth|Alive|Clone|Earth (Replacement Dimension)|unknown|6
    76|Sleepy Gary|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    77|Photography Raptor|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    78|Cousin Nicky|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    79|Hamurai|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    80|Uncle Steve|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    81|Pencilvester|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    82|Reverse Giraffe|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    83|Frankenstein's Monster|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    84|Mrs. Refrigerator|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    85|Ice-T|Alive|Alien|Alphabetrium|Alphabetrium|1
    86|Magma-Q|Alive|Alien|Alphabetrium|Alphabetrium|1
    87|Gazorpazorpfield|Alive|Alien|Gazorpazorp|Interdimensional Cable|1
    88|President Curtis|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|4
    89|General Nathan|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|1
    90|Dr. Xenon Bloom|Dead|Alien|unknown|Anatomy Park|1
    91|Reuben|Dead|Human|Earth (C-137)|Anatomy Park|1
    92|Poncho|Dead|Human|Earth (C-137)|Anatomy Park|1
    93|Roger|Dead|Human|Earth (C-137)|Anatomy Park|1
    94|Hemorrhage|Alive|Human|Post-Apocalyptic Earth|Post-Apocalyptic Earth|1
    95|Butter Robot|Alive|Robot|Earth (C-137)|Earth (Replacement Dimension)|2
    96|Gwendolyn|Alive|Robot|Earth (C-137)|Earth (Replacement Dimension)|1
    97|Diane Sanchez|Dead|Human|Earth (C-137)|Earth (C-137)|2
    98|Shrimply Pibbles|Alive|Alien|unknown|Earth (Replacement Dimension)|1
    99|Jacob|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|1
    100|Leonard Smith|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|2
    101|Joyce Smith|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|2
    102|Davin|Dead|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|1
    103|Brad|Alive|Human|Earth (Replacement Dimension)|Earth (Replacement Dimension)|2
    104|Toxic Rick|Dead|Humanoid|Detoxifier|Earth (Replacement Dimension)|1
    105|Toxic Morty|Dead|Humanoid|Detoxifier|Earth (Replacement Dimension)|1
    106|Simple Rick|Dead|Human|unknown|Citadel of Ricks|1
    107|Cronenberg Rick|Alive|Cronenberg|Cronenberg Earth|Cronenberg Earth|2
    108|Cronenberg Morty|Alive|Cronenberg|Cronenberg Earth|Cronenberg Earth|2
    109|Fascist Rick|Dead|Human|Fascist Dimension|Fascist Dimension|1
    110|Wasp Rick|Alive|Animal|Wasp Dimension|Wasp Dimension|1
    111|Phoenixperson|Dead|Cyborg|Bird World|Citadel of Ricks|1
    112|Planetina|Alive|Humanoid|unknown|Earth (Replacement Dimension)|1
    113|Risotto Groupon|Dead|Alien|unknown|Immortality Field Resort|1
    114|Morty Jr.|Alive|Alien|Earth (Replacement Dimension)|Earth (Replacement Dimension)|2
    115|Hammerhead Morty|Alive|Human|unknown|Citadel of Ricks|2
    116|Stealy|Alive|Alien|unknown|Interdimensional Cable|1
    117|Concerto|Dead|Humanoid|unknown|Earth (Replacement Dimension)|1
    118|Balthromaw|Alive|Mythological Creature|unknown|Earth (Replacement Dimension)|1
    119|Zick Zack|Dead|Alien|unknown|Earth (Replacement Dimension)|1
    120|Gromflomite Soldier|Alive|Alien|Gromflom Prime|Gromflom Prime|2
    """
